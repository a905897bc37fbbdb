// Shapes of the engine's responses (docs/contract.md, the interface specification) and of the page's own state, as JSDoc
// types for `tsc --checkJs`. Nothing runs here.

/**
 * @typedef {{code: string, path: string, message: string}} EngineError
 * @typedef {{ok: true, command?: string, result: any, warnings?: EngineError[]}
 *         | {ok: false, errors: EngineError[], warnings?: EngineError[]}} EngineResponse
 *
 * @typedef {{weights_mib: number, grads_mib: number, optimizer_mib: number, static_mib: number,
 *            reserved_mib: number, activation_mib: number, peak_mib: number, limit_mib?: number,
 *            in_flight_micro_batches?: number}} StageMemory
 * @typedef {{forward_ms: number, backward_ms: number, recompute_ms: number, send_ms: number,
 *            busy_ms: number, bubble_ms: number}} StageTime
 * @typedef {{stage: number, virtual_stages: number[], layers: number[][], memory: StageMemory,
 *            time: StageTime}} StageResult
 * @typedef {{stage: number, virtual_stage: number, micro_batch: number, op: 'F' | 'B' | 'W' | 'F&B',
 *            start_ms: number, end_ms: number, weight_apart?: boolean, backward_virtual_stage?: number,
 *            backward_micro_batch?: number}} TimelineOp
 *   weight_apart (B, F&B): the B computes only the input gradient, its W runs later; backward_* (F&B): the
 *   backward's virtual stage and micro batch (virtual_stage and micro_batch are the forward's)
 * @typedef {{stage: number, peak_mib?: number, limit_mib?: number, over_mib?: number, message: string}} Violation
 * @typedef {{feasible: boolean, step_time_ms: number, span_ms?: number,
 *            bubble: {fraction: number, span_fraction?: number, per_stage_ms: number[]},
 *            imbalance: {max_over_mean: number, max_minus_min_ms: number},
 *            pp_degree?: number, vpp_degree?: number, micro_batch_num?: number, schedule?: string,
 *            stage_partition: number[], stage_layers: number[], layer_offset: number[],
 *            layer_recompute: Record<string, number[]>, recompute_counts: Record<string, number[]>,
 *            stages: StageResult[], violations: Violation[], timeline?: TimelineOp[],
 *            timeline_truncated?: boolean, timeline_operations?: number, timeline_limit?: number,
 *            memory_timeline?: number[][][],
 *            baseline?: EstimateResult, gain?: Record<string, number>, method?: BalanceMethod,
 *            infeasibility?: Infeasibility | null,
 *            throughput?: Throughput | null, caveats?: string[]}} EstimateResult
 * What a plan processes (the engine's `throughput`): samples per second of the whole job, tokens per second per
 * device and model FLOPs utilisation, each null when unknown; caveats: what the estimate leaves out, in sentences.
 * @typedef {{samples_per_s?: number | null, tokens_per_s_per_device?: number | null, mfu?: number | null}} Throughput
 * @typedef {{proven: boolean, message: string, limit_mib: number, lower_bound_mib: number, static_share_mib: number,
 *            static_total_mib: number, memory_needed_mib: number, min_pp_degree: number | null,
 *            min_pp_degree_checked: boolean, recompute_option: string | null, recompute_option_checked: boolean,
 *            suggestions: string[]}} Infeasibility
 * @typedef {{schedule: string, vpp_degree: number, runs: boolean, problems: EngineError[], partition_as_given: boolean,
 *            feasible: boolean | null, step_time_ms: number | null, span_ms: number | null, bubble_fraction: number | null,
 *            bubble_span_fraction: number | null, peak_mib: number | null, peak_stage: number | null,
 *            plan?: CandidatePlan | null, proven_optimal?: boolean | null, stopped_early?: boolean | null}} CompareRow
 *   plan: the plan the row ran (the plan shown, the even split, or its own balanced plan)
 * @typedef {{plans?: 'as_given' | 'balanced', schedules: CompareRow[], fastest: string | null,
 *            fastest_by_span: string | null}} CompareResult
 * @typedef {{algorithm?: string, proven_optimal?: boolean, lower_bound_ms?: number | null,
 *            within_tolerance?: number | null, notes?: string[]}} BalanceMethod
 *
 * @typedef {{stage_layers: number[], layer_offset: number[], layer_recompute: Record<string, number[]>,
 *            recompute_counts: Record<string, number[]>}} CandidatePlan
 * @typedef {{pp_degree: number, vpp_degree: number, micro_batch_num: number, schedule: string,
 *            feasible: boolean, step_time_ms: number | null, peak_mib: number | null,
 *            bubble_fraction: number | null, plan?: CandidatePlan | null, reasons?: string[],
 *            throughput_samples_per_s?: number | null, time_per_sample_ms?: number | null, gain_ms?: number | null,
 *            dp_degree?: number | null, even_split?: {step_time_ms: number | null, feasible: boolean} | null,
 *            gain_note?: string | null, throughput?: Throughput | null, tight?: boolean | null}} SearchCandidate
 *   tight: it fits, but leaves less than the device's memory margin free (null when ruled out before balancing)
 * @typedef {{candidate: number, runner_up: number | null, value: number, runner_up_value: number | null,
 *            lead_fraction: number | null, headroom_mib: number | null, reasons: string[], tie?: boolean,
 *            tied?: number, tight?: boolean}} SearchBest
 *   tie: more than one candidate is within the estimate's uncertainty of the fastest (tied: how many), listed simpler
 *   first, so the winner may be slightly slower than the next (lead_fraction below 0); tight: the winner is tight
 * @typedef {{candidates: SearchCandidate[], pareto: number[],
 *            counts: {space: number, evaluated: number, skipped: number, infeasible: number},
 *            elapsed_ms: number, partial: boolean, cancelled?: boolean, rank_by?: 'step_time' | 'time_per_sample' | 'throughput',
 *            infeasibility?: Infeasibility | null, best?: SearchBest | null,
 *            infeasible_groups?: {reason: string, count: number}[], skipped_groups?: {reason: string, count: number}[],
 *            caveats?: string[]}} SearchResult
 *
 * The progress of long work (a balance, a search) between two slices, as the engine's progress writer writes it
 * (docs/contract.md, "Progress"): every field always there, null where it does not apply.
 * @typedef {{command: 'balance' | 'search', phase: string, done: number, total: number | null,
 *            simulations: number | null, incumbent_ms: number | null, lower_bound_ms: number | null,
 *            finished: boolean}} Progress
 *   phase: the balance's phase next to run, or 'candidates' for a search; 'done' at the end. done: a balance's search
 *   nodes, a search's candidates evaluated; total: a search's candidates in the space (a balance has none).
 *   simulations, incumbent_ms, lower_bound_ms: a balance's effort, best step time so far and proven bound
 *
 * A schedule as the engine runs it (the module's schedules(), docs/contract.md, "Schedules"): the chunk counts
 * (vpp_degree) it runs, from min to max, and the one it runs when none is given; weight_apart: it runs weight
 * gradients apart from their backward, so its span differs from its step time; v_shape: its chunks lie in a V;
 * cost_aware: its order is found for the plan's stage costs (zb_auto).
 * @typedef {{name: string, vpp_degree: {min: number, max: number, default: number}, weight_apart: boolean,
 *            v_shape: boolean, cost_aware: boolean}} ScheduleFacts
 *
 * A device preset as the engine keeps it (the module's devicePresets(), docs/contract.md, "Device presets"): the id
 * `device.preset` names, the vendor's name, and the figures it fills (docs/devices.md gives their sources).
 * @typedef {{id: string, name: string, memory_limit_mib: number, reserved_mib: number, peak_tflops: number,
 *            peak_tflops_fp8: number | null, gpus_per_node: number, intra_node_gbs: number, inter_node_gbs: number}} DevicePresetFacts
 *
 * The caps the page checks before it sends a document (the module's limits()): the request text's bytes
 * (INPUT_TOO_LARGE) and a model's layers (LAYER_LIMIT).
 * @typedef {{max_input_bytes: number, max_layers: number}} EngineLimits
 *
 * What a cluster gives one pp_degree (the `cluster` command's result): dp and micro batches, each null when it does
 * not divide, and the rule broken.
 * @typedef {{world_size: number, pp_degree: number, tp_degree: number, cp_degree: number, ep_degree: number,
 *            dp_degree: number | null, global_batch_size: number | null, micro_batch_size: number,
 *            micro_batch_num: number | null, problems: EngineError[]}} ClusterResult
 */

/**
 * The page's whole state: what a share link and a state file hold.
 * @typedef {{
 *   model: any,
 *   modelLabel: string,
 *   transformer: Record<string, string | boolean> | null,
 *   settings: Settings,
 *   search: SearchSettings,
 *   compare: {pinned: PinnedPlan | null},
 *   plan?: LinkedPlan | null,
 *   ui: {theme: 'auto' | 'light' | 'dark', openPlan: string, search: boolean, lang: 'en' | 'zh' | null,
 *        modelSource: 'file' | 'transformer' | 'paste'}
 * }} PageState
 *
 * plan: the PPB plan shown when the state was written (links and state files only; null while the inputs ask for another):
 * opening the state estimates it as it is instead of balancing again.
 *
 * ui.modelSource: where the Model panel takes the model from, as chosen at its top, three equal ways: a layer cost
 * file or an example, the transformer form (a description, with presets), or a pasted config (config.json text).
 *
 * Control values are kept as the person typed them (strings), so what goes to the engine is what was typed
 * and the engine's error can name it. stage_layers: a partition dragged by hand, sent as `pipeline.stage_layers`
 * until the engine's answer gives its layer_offset (the page converts no partition form itself); null otherwise.
 * @typedef {{
 *   pp_degree: string, vpp_degree: string, schedule: string,
 *   batch_mode: 'micro_batch_num' | 'global',
 *   micro_batch_num: string, global_batch_size: string, micro_batch_size: string, dp_degree: string,
 *   memory_limit_mib: string, reserved_mib: string, p2p_bandwidth_gbs: string, p2p_latency_ms: string,
 *   device_preset: string,
 *   recompute_options: string[] | null,
 *   partition: 'even' | 'ppb' | 'explicit',
 *   layer_offset: string,
 *   stage_layers: number[] | null,
 *   recompute_counts: Record<string, string>,
 *   recompute_layers: Record<string, number[]> | null
 * }} Settings
 *
 * The search starts from the cluster: world_size devices, the global batch, the micro batch size, tp, cp and ep; every
 * candidate gets dp = world_size / (pp x tp x cp) (its dp x cp x tp a multiple of ep x expert tp) and micro batches =
 * global batch / (micro batch size x dp). With world_size empty there is no cluster: micro_batch_num is a free list
 * and candidates are ranked per sample. sharding: `training.sharding` at each candidate's dp ('' sends none: the
 * model's own bytes per parameter apply); expert_tp_degree: `parallel.expert_tp_degree` ('' is tp).
 * @typedef {{world_size: string, global_batch_size: string, micro_batch_size: string, tp_degree: string, cp_degree: string,
 *            ep_degree: string, expert_tp_degree: string, sharding: string,
 *            pp_degree: string, vpp_degree: string, micro_batch_num: string, schedule: string[], top_k: string}} SearchSettings
 *
 * A balanced plan carried by a link, compact: pp, vpp, micro batches and schedule as the engine ran them, layers per
 * virtual stage, each recompute option's layers as inclusive [first, last] runs, and how the balance ended (proven
 * optimal, or within a share of the optimum), so the page can say so without balancing again.
 * @typedef {{pp: number, vpp: number, m: number, schedule: string, layers: number[],
 *            recompute: Record<string, [number, number][]>, proven: boolean, within: number | null}} LinkedPlan
 *
 * A plan kept for the comparison view: the request sections that make it (the model is the page's own).
 * @typedef {{label: string, request: Record<string, any>}} PinnedPlan
 */

export {};
