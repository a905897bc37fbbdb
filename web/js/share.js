// Share links and state files. A link carries the whole state in its fragment: `#ppb1.` + base64url of the gzip
// (CompressionStream) of the state JSON; the digit is the format version. Nothing is sent to a server (fragments
// never are). Links longer than MAX_LINK_CHARS are refused in favour of a state file, which the page opens
// again like any other file. Every way a link can be broken ends in a LinkError with a sentence for the person.

/** @import {PageState} from './types.js' */
import { normaliseState } from './state.js';
import { t } from './i18n.js';

export const LINK_VERSION = 1;
export const LINK_PREFIX = `#ppb${LINK_VERSION}.`;
/** Longest fragment offered as a link: chat tools, mail clients and wikis cut longer URLs. */
export const MAX_LINK_CHARS = 32_000;
export const STATE_FORMAT = 'ppb.state.v1';
/** Largest decompressed state accepted from a link (a guard against gzip bombs). */
const MAX_STATE_BYTES = 64 * 1024 * 1024;

export class LinkError extends Error {}

/**
 * @param {Uint8Array} bytes
 * @returns {string}
 */
function toBase64Url(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * @param {string} text
 * @returns {Uint8Array}
 */
function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new LinkError(t('The link is damaged: its data has characters a PPB link never has. It may have been changed by hand or by the tool it was sent through.'));
  if (text.length % 4 === 1) throw new LinkError(t('The link is cut off: its data ends in the middle. Ask for the whole link again.'));
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Pipes bytes through a (de)compression stream.
 * @param {Uint8Array} bytes
 * @param {CompressionStream | DecompressionStream} stream
 * @param {number} [limit] stop with an error past this many output bytes
 * @returns {Promise<Uint8Array>}
 */
async function pipe(bytes, stream, limit = Infinity) {
  const writer = stream.writable.getWriter();
  writer.write(/** @type {Uint8Array<ArrayBuffer>} */ (bytes)).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw new LinkError(t('The link unpacks to more than 64 MiB, more than any PPB state; it is not a PPB link.'));
    }
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * The fragment for a state: `#ppb1.` + base64url(gzip(JSON)).
 * @param {PageState} state
 * @returns {Promise<string>}
 */
export async function encodeState(state) {
  return LINK_PREFIX + await packJson(state);
}

/**
 * Any JSON value as base64url(gzip(JSON)), the data part of a link.
 * @param {unknown} value
 * @returns {Promise<string>}
 */
export async function packJson(value) {
  const json = new TextEncoder().encode(JSON.stringify(value));
  return toBase64Url(await pipe(json, new CompressionStream('gzip')));
}

/**
 * The JSON value packed by packJson; throws LinkError when it is not one.
 * @param {string} text
 * @returns {Promise<unknown>}
 */
export async function unpackJson(text) {
  const packed = fromBase64Url(text);
  let bytes;
  try {
    bytes = await pipe(packed, new DecompressionStream('gzip'), MAX_STATE_BYTES);
  } catch (error) {
    if (error instanceof LinkError) throw error;
    throw new LinkError(t('The link is damaged or cut off: its compressed data is incomplete. Ask for the whole link again.'));
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new LinkError(t('The link is damaged: its data unpacks, but not to the JSON a PPB link holds.'));
  }
}

/**
 * Whether a fragment looks like a PPB state link at all (of any version).
 * @param {string} hash
 */
export const isStateLink = (hash) => hash.startsWith('#ppb');

/**
 * Reads a state back from a fragment; throws LinkError with a message for people when it cannot.
 * @param {string} hash location.hash, with the '#'
 * @returns {Promise<PageState>}
 */
export async function decodeState(hash) {
  const match = /^#ppb(\d+)\.(.*)$/s.exec(hash);
  if (!match) throw new LinkError(t('The link is damaged: the part after # does not start with a PPB version tag (#ppb1.).'));
  const version = Number(match[1]);
  if (version !== LINK_VERSION) {
    throw new LinkError(version > LINK_VERSION
      ? t('The link was made by a newer version of PPB (link format {v}); this page reads format {mine}. Open it with the newer page.', { v: version, mine: LINK_VERSION })
      : t('The link uses link format {v}, which this page does not read (it reads format {mine}).', { v: version, mine: LINK_VERSION }));
  }
  if (match[2] === '') throw new LinkError(t('The link is cut off: it has a version tag but no data.'));
  const state = normaliseState(await unpackJson(match[2]));
  if (!state) throw new LinkError(t('The link holds no model, so there is nothing to show.'));
  return state;
}

/**
 * A state file (what the page offers when a link would be too long).
 * @param {PageState} state
 * @returns {Blob}
 */
export function stateFile(state) {
  return new Blob([JSON.stringify({ format: STATE_FORMAT, state }, null, 1)], { type: 'application/json' });
}

/**
 * The state in a parsed state file, or null when the document is not one.
 * @param {any} document
 * @returns {PageState | null}
 */
export function stateFromFile(document) {
  if (!document || document.format !== STATE_FORMAT) return null;
  return normaliseState(document.state);
}
