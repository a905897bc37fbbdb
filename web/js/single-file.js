// The single-file page (build/site/ppb.html, written by tools/single-file.mjs) carries its worker and one example
// inside itself, so that it works opened from disk; its first script sets window.PPB_SINGLE_FILE before any module
// runs. The normal page does not set it and loads worker.js and examples/ beside itself.

/**
 * workerUrl: a Blob URL of the worker with the engine and its WASM inside; example: the one example carried.
 * @typedef {{workerUrl: string, example: {file: string, text: string}}} SingleFile
 */

/** @type {SingleFile | null} */
export const singleFile = /** @type {any} */ (globalThis).PPB_SINGLE_FILE ?? null;
