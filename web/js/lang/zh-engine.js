// Chinese for the engine's sentences (js/engine-text.js): each a pattern of one clause, matched whole, and its
// Chinese with $1, $2... for the captured parts (numbers, names, nested phrases, which are translated in turn when a
// pattern knows them). The engine writes these in engine/src: search/search_rank.cpp (why the winner wins),
// search/search_evaluate.cpp and schedule/shape_rules.cpp (what does not fit or run), search/search_space.cpp (what
// the cluster skips), simulate/caveats.cpp and io/search_response.cpp (what the estimate leaves out). A clause not
// listed stays English on the Chinese page, marked lang="en". Numbers arrive as the page writes them (1,234).

const N = '([\\d,.]+)';
/** A candidate as the engine describes it: "pp 8, vpp 2, interleaved 1F1B, 32 micro batches". */
const PLAN = '(pp \\d+(?:, vpp \\d+)?, [^,()]+, [\\d,]+ micro batches)';
/** A ranking measure: "12.3 samples/s", "45 ms per sample", "678 ms per step". */
const MEASURE = '([\\d,.]+ (?:samples/s|ms per sample|ms per step))';

/**
 * @param {string} source
 * @returns {RegExp}
 */
const whole = (source) => new RegExp(`^${source}$`);

/** @type {[RegExp, string][]} */
export const ZH_ENGINE = [
  // ---- phrases inside the sentences below ----
  [whole(`pp (\\d+)(, vpp \\d+)?, ([^,()]+), ([\\d,]+) micro batches`), 'pp $1$2，$3，$4 个微批次'],
  [whole(`${N} samples/s`), '每秒 $1 个样本'],
  [whole(`${N} ms per sample`), '每样本 $1 ms'],
  [whole(`${N} ms per step`), '每步 $1 ms'],
  [/^throughput$/, '吞吐量'],
  [/^time_per_sample$/, '每样本时间'],
  [/^step_time$/, '单步时间'],
  [/^the highest throughput$/, '吞吐量最高'],
  [/^the least time per sample$/, '每样本时间最短'],
  [/^the shortest step$/, '单步最短'],
  [whole('([\\d, ]+) and (\\d+) more'), '$1 等另外 $2 个'],

  // ---- why the winner wins (result.best.reasons) ----
  [whole(`the only candidate that fits in memory: ${MEASURE}`), '唯一能放进显存的候选：$1'],
  [whole(`a tie: (\\d+) plans are within ([\\d.]+%) of the fastest by (\\w+), inside the estimate's uncertainty`),
    '并列：$1 个方案按$3与最快者相差不超过 $2，在估算的不确定范围内'],
  [whole(`the simplest comes first \\(the memory margin free, fewer stages, no interleaving, less recompute\\): ${MEASURE}, the next \\(${PLAN}: ${MEASURE}\\)`),
    '最简单的排在前面（留出显存余量、阶段更少、不交错、重计算更少）：$1，下一名（$2：$3）'],
  [whole(`(the highest throughput|the least time per sample|the shortest step): ${MEASURE}, ([\\d.]+%) ahead of the next \\(${PLAN}: ${MEASURE}\\)`),
    '$1：$2，领先下一名 $3（$4：$5）'],
  [whole(`tied by (\\w+) with the next \\(${PLAN}: ${MEASURE}\\), which holds more memory`), '按$1与下一名（$2：$3）并列，后者占用更多显存'],
  [whole(`step time ${N} ms against ${N} ms`), '单步时间 $1 ms，下一名 $2 ms'],
  [whole('bubble ([\\d.]+%) of the step against ([\\d.]+%)'), '气泡占单步的 $1，下一名 $2'],
  [whole(`largest stage ${N} MiB, ${N} MiB under the ${N} MiB limit \\(the next: ${N} MiB under\\)`),
    '最大阶段 $1 MiB，低于 $3 MiB 上限 $2 MiB（下一名：低 $4 MiB）'],
  [whole(`largest stage ${N} MiB, ${N} MiB under the ${N} MiB limit`), '最大阶段 $1 MiB，低于 $3 MiB 上限 $2 MiB'],
  [whole(`largest stage ${N} MiB \\(no memory limit given\\)`), '最大阶段 $1 MiB（未设置显存上限）'],
  [whole(`tight: less than the memory margin \\(([\\d.]+%), ${N} MiB\\) is left free`), '偏紧：剩余显存少于显存余量（$1，$2 MiB）'],
  [/^no plan found leaves it free$/, '没有找到能留出这部分余量的方案'],
  [whole(`the best that leaves it free: ${PLAN}: ${MEASURE}`), '能留出余量的最佳方案：$1：$2'],

  // ---- what does not fit, run or divide (reasons, groups, gain notes) ----
  [whole(`stage (\\d+) needs ${N} MiB, limit ${N} MiB \\(${N} MiB over\\)`), '阶段 $1 需要 $2 MiB，上限 $3 MiB（超出 $4 MiB）'],
  [/^every stage over the memory limit$/, '每个阶段都超出显存上限'],
  [whole('stages? ([\\d, \\-–]+(?: and \\d+ more)?) over the memory limit'), '阶段 $1 超出显存上限'],
  [/^the even split would leave a virtual stage empty$/, '均匀切分会留下空的虚拟阶段'],
  [whole(`the even split does not fit: its largest stage needs ${N} MiB, limit ${N} MiB`), '均匀切分放不下：其最大阶段需要 $1 MiB，上限 $2 MiB'],
  [/^world_size is not divisible by pp_degree x tp_degree x cp_degree$/, 'world_size 不能被 pp_degree x tp_degree x cp_degree 整除'],
  [/^dp_degree is not divisible by ep_degree$/, 'dp_degree 不能被 ep_degree 整除'],
  [/^global_batch_size is not divisible by micro_batch_size x dp_degree$/, 'global_batch_size 不能被 micro_batch_size x dp_degree 整除'],
  [/^more virtual stages than the model has layers to split$/, '虚拟阶段数多于模型可切分的层数'],
  [/^component lists do not match pp_degree$/, '组件列表与 pp_degree 不符'],
  [whole('micro_batch_num is not a multiple of pp_degree \\((.+)\\)'), 'micro_batch_num 不是 pp_degree 的倍数（$1）'],
  [whole('micro_batch_num below 2 x pp_degree \\((.+)\\)'), 'micro_batch_num 小于 2 x pp_degree（$1）'],

  // ---- why a plan cannot fit (result.infeasibility.message, search/infeasibility.cpp) ----
  [/^(\d+) stages?$/, '$1 个阶段'],
  [/^with no recompute option allowed$/, '不允许任何重计算选项'],
  [/^with every layer on its most memory-saving option of (.+)$/, '每层都用 $1 中最省显存的选项'],
  [whole(`No partition into (\\d+ stages?) fits: static memory alone is ${N} MiB on a stage \\(${N} MiB in all\\) plus ${N} MiB reserved, over the ${N} MiB limit`),
    '切分成 $1都放不下：仅静态显存每个阶段就有 $2 MiB（共 $3 MiB），另加预留 $4 MiB，超过 $5 MiB 上限'],
  [whole(`No partition into (\\d+ stages?) fits: static memory alone is ${N} MiB on a stage \\(${N} MiB in all\\), over the ${N} MiB limit`),
    '切分成 $1都放不下：仅静态显存每个阶段就有 $2 MiB（共 $3 MiB），超过 $4 MiB 上限'],
  [whole(`No partition into (\\d+ stages?) fits: every plan has a stage that needs at least ${N} MiB \\(${N} MiB of it static memory, the rest reserved memory and activations (.+)\\), over the ${N} MiB limit`),
    '切分成 $1都放不下：每个方案都有一个阶段至少需要 $2 MiB（其中静态显存 $3 MiB，其余为预留显存和激活，$4），超过 $5 MiB 上限'],
  [whole(`No partition into (\\d+ stages?) fits: the plan that exceeds the limit least \\((.+)\\) needs ${N} MiB on its largest stage, ${N} MiB over the ${N} MiB limit`),
    '切分成 $1都放不下：超出最少的方案（$2）最大阶段需要 $3 MiB，超过 $5 MiB 上限 $4 MiB'],
  [whole(`This plan needs ${N} MiB on its largest stage, over the ${N} MiB limit`), '此方案最大阶段需要 $1 MiB，超过 $2 MiB 上限'],
  [whole(`no plan that fits was found, though the memory bound \\(${N} MiB\\) does not rule one out`), '没有找到放得下的方案，尽管显存下界（$1 MiB）并未排除这种可能'],

  // ---- how a balance ended (result.method.notes, balance/balance_answer.cpp, balance/balancer_state.hpp) ----
  [/^the time budget did not allow the bound table with exact recompute \(one recompute frontier per layer range\)$/,
    '时间预算不足以建立含精确重计算的界表（每个层区间一条重计算前沿）'],
  [/^a weaker table that leaves recompute time out was used$/, '改用了不计重计算时间的较弱界表'],
  [/^the time budget did not allow even the relaxed bound table \(it grows with layers x layers\)$/, '时间预算连放宽的界表也不足以建立（其规模随层数的平方增长）'],
  [/^the search used per-stage bounds only, starting from the even split$/, '搜索只用了逐阶段的界，从均匀切分开始'],
  [/^the search stopped at its budget before every candidate was ruled out$/, '搜索在排除所有候选之前达到了预算上限'],
  [/^searched to within the requested tolerance of the optimum$/, '已搜索到与最优相差不超过所要求的容差'],
  [whole(`the count search closed every node, some to within ${N} ms of the best time \\(the rounding of its linear programs\\)`),
    '计数搜索关闭了所有节点，其中一些与最佳时间相差不超过 $1 ms（其线性规划的舍入）'],
  [whole(`a recompute frontier was thinned to (\\d+) points: its answers may exceed the least recompute time by up to ${N} ms, so the bound holds to within ${N} ms`),
    '一条重计算前沿被精简到 $1 个点：其结果可能比最少重计算时间多出至多 $2 ms，因此界在 $3 ms 之内成立'],
  [/^the balance is still running$/, '均衡仍在进行'],
  [/^this is the best plan so far$/, '这是目前最好的方案'],
  [/^the balance was (cancelled|stopped) before it finished$/, '均衡在完成之前被停止'],
  [/^the balance is still running and has not found a plan that fits the memory limit yet$/, '均衡仍在进行，尚未找到放得下显存上限的方案'],
  [/^the balance was (?:cancelled|stopped) before it found a plan that fits the memory limit$/, '均衡在找到放得下显存上限的方案之前被停止'],
  [/^no plan that fits the memory limit was found within the search budget$/, '在搜索预算内没有找到放得下显存上限的方案'],
  [/^no plan fits the memory limit with the recompute options allowed$/, '在允许的重计算选项下没有方案放得下显存上限'],
  [/^this is the plan that exceeds it least$/, '这是超出最少的方案'],
  [/^this is the even split with the most activation-saving recompute$/, '这是采用最省激活重计算的均匀切分'],
  [whole('not proven optimal: under (.+) a layer states a weight activation below the activation it keeps, and the balancer charges the part held from B to W as the whole activation, so a plan that fits could have been ruled out'),
    '未证明最优：在 $1 下，某层给出的权重激活小于其保留的激活，而均衡器把从 B 到 W 保留的部分按整份激活计算，因此可能排除了放得下的方案'],

  // ---- what the estimate leaves out (caveats) ----
  [/^The data-parallel gradient reduction after the last backward is not in the step time \(Megatron-LM overlaps most of it with the backward\)$/,
    '最后一次反向之后的数据并行梯度归约未计入单步时间（Megatron-LM 会让其大部分与反向重叠）'],
  [/^The optimizer step is not in the step time \(a component with step_ms adds it\)$/, '优化器步骤未计入单步时间（带 step_ms 的组件会把它加上）'],
  [/^Tensor-, context- and expert-parallel communication take no time: give device\.preset, or device\.gpus_per_node, intra_node_gbs and inter_node_gbs, to add them$/,
    '张量并行、上下文并行和专家并行的通信不计时间：给出 device.preset，或 device.gpus_per_node、intra_node_gbs 和 inter_node_gbs，即可计入'],
  [/^No layer states its communication time \(forward_comm_ms, backward_comm_ms\): what a schedule could hide of it \(dualpipev\) is not credited$/,
    '没有层给出其通信时间（forward_comm_ms、backward_comm_ms）：调度可隐藏的部分（dualpipev）未计入'],
  [/^Layer times are the model's FLOPs at the device's peak times compute_efficiency, not measured$/,
    '层时间由模型的 FLOPs 按设备峰值乘以 compute_efficiency 算出，并非实测'],
  [/^a profile of one layer is the surest correction$/, '实测一层的开销是最可靠的校正'],
  [/^Stage-to-stage transfers cost only their latency: device\.p2p_bandwidth_gbs is not given$/, '阶段间传输只计延迟：未给出 device.p2p_bandwidth_gbs'],
  [/^No memory is kept back for the CUDA context, communication buffers and workspaces \(device\.reserved_mib is 0; about 2 GiB on current stacks, which device\.preset fills in\)$/,
    '没有为 CUDA 上下文、通信缓冲区和工作区预留显存（device.reserved_mib 为 0；当前软件栈约需 2 GiB，device.preset 会填入）'],
  [whole('The allocator\'s fragmentation is not modelled: a plan should leave device\\.memory_margin \\(([\\d.]+%) of the limit\\) free'),
    '未建模分配器的碎片：方案应留出 device.memory_margin（上限的 $1）'],
  [whole(`Tight: stages? (.+?) leaves? less than ([\\d.]+%) of the ${N} MiB limit free`), '偏紧：阶段 $1 剩余不足 $3 MiB 上限的 $2'],
  [whole('(\\d+) candidates? shown (?:are|is) tight: marked, they leave less than device\\.memory_margin of the limit free'),
    '所列候选中有 $1 个偏紧（已标出）：剩余显存少于上限的 device.memory_margin'],
  // A list of recompute options ("full" or "selective"), last: it would take any clause that ends in a quoted name.
  [/^(.+) or (".+")$/, '$1 或 $2'],
];
