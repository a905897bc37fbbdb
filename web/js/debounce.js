// One pending run of a piece of work, however often it is asked for: after a quiet moment (the plan while typing,
// the schedule comparison while a boundary is dragged) or at the next animation frame (a chart redrawn once per
// frame, however many zoom and pan steps came in it).

/**
 * @typedef {{schedule: () => void, cancel: () => void, now: () => void, readonly pending: boolean}} Debounced
 * schedule: runs after `wait` (a later call starts the wait again; 'frame': at the next animation frame, where
 *   later calls join the pending run); cancel: drops the pending run; now: drops it and runs at once
 */

/**
 * @param {() => void} run
 * @param {number | 'frame'} wait milliseconds without a new call, or 'frame'
 * @returns {Debounced}
 */
export function debounce(run, wait) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let frame = 0;
  const cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    if (frame) cancelAnimationFrame(frame);
    timer = undefined;
    frame = 0;
  };
  const fire = () => {
    timer = undefined;
    frame = 0;
    run();
  };
  return {
    schedule() {
      if (wait === 'frame') {
        if (!frame) frame = requestAnimationFrame(fire);
        return;
      }
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(fire, wait);
    },
    cancel,
    now() {
      cancel();
      run();
    },
    get pending() {
      return timer !== undefined || frame !== 0;
    },
  };
}
