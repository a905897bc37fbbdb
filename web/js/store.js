// The page's one mutable state: what the person chose (PageState) and what the page reads of its model before the
// engine has seen it (ModelInfo). Inputs edit the state; the plan runner builds requests from it; a link, a state
// file or the default example replaces it whole.

/** @import {PageState} from './types.js' */
/** @import {ModelInfo} from './model.js' */
import { modelInfo } from './model.js';

export class Store {
  /** @param {PageState} state */
  constructor(state) {
    /** @type {PageState} */
    this.state = state;
    /** @type {ModelInfo} */
    this.info = modelInfo(state.model);
  }

  /**
   * Puts a state in place, or the same one after its model changed: the model info follows.
   * @param {PageState} state
   */
  replace(state) {
    this.state = state;
    this.info = modelInfo(state.model);
  }
}
