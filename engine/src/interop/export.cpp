// Plans in MindFormers and Megatron-LM terms. MindFormers: mindformers/models/utils.py
// (LayerSetting: layers per stage = num_layers // (pp x vpp) + offset, recompute counts are the
// first N layers of each stage, full recompute wins over the select kinds) and the SAPP tool's
// yaml_from_internal (hyper_parallel/auto_parallel/sapp_ppb/utils/recompute.py). Megatron-LM:
// megatron/core/transformer/pipeline_parallel_layer_layout.py (layout syntax),
// megatron/training/arguments.py and transformer_layer.py (uneven first/last stages, virtual
// stages) and transformer_block.py (recompute methods).
#include "ppb/interop/export.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "ppb/core/limits.hpp"
#include "ppb/core/version.hpp"
#include "ppb/model/request.hpp"
#include "ppb/plan/megatron_layout.hpp"

namespace ppb {

using nlohmann::json;

namespace {

std::string str(std::int64_t n) { return std::to_string(n); }

// "0, 3 and 5"
std::string list_text(const std::vector<int>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " and " : ", ";
    out += str(values[i]);
  }
  return out;
}

std::string stages_text(const std::vector<int>& stages) {
  return (stages.size() == 1 ? "virtual stage " : "virtual stages ") + list_text(stages);
}

// Per virtual stage values as MindFormers lists: [pp] when vpp = 1, else [vpp][pp], entry [c][s]
// the virtual stage chunk c holds on stage s (chunk-major c pp + s, or the V's under zbv and dualpipev).
json framework_list(const std::vector<int>& per_virtual, const PipelineShape& shape) {
  if (shape.vpp_degree == 1) return per_virtual;
  json out = json::array();
  for (int c = 0; c < shape.vpp_degree; ++c) {
    std::vector<int> row;
    for (int s = 0; s < shape.pp_degree; ++s)
      row.push_back(per_virtual[static_cast<std::size_t>(shape.virtual_stage(s, c))]);
    out.push_back(std::move(row));
  }
  return out;
}

// Options of the plan that a framework has no name for, with the number of layers using each,
// and the pinned layers that are recomputed (frameworks recompute decoder layers only).
struct Unmapped {
  std::map<std::string, int> options;
  std::vector<int> pinned_layers;
};

Unmapped unmapped_recompute(const Plan& plan, const Model& model, const std::vector<std::string>& mapped) {
  Unmapped out;
  for (int i = 0; i < model.layer_count(); ++i) {
    const int option = plan.recompute[static_cast<std::size_t>(i)];
    if (option < 0) continue;
    const bool pinned = i < model.body_begin() || i >= model.body_end();
    const std::string& name = model.recompute_options[static_cast<std::size_t>(option)];
    if (pinned)
      out.pinned_layers.push_back(i);
    else if (std::find(mapped.begin(), mapped.end(), name) == mapped.end())
      ++out.options[name];
  }
  return out;
}

void note_unmapped(const Unmapped& u, const std::string& framework, json& notes) {
  for (const auto& [name, count] : u.options)
    notes.push_back("recompute option \"" + name + "\" (" + str(count) + " layer" + (count == 1 ? "" : "s") +
                    ") has no " + framework + " counterpart; those layers are written out without recompute.");
  if (!u.pinned_layers.empty())
    notes.push_back("pinned layer" + std::string(u.pinned_layers.size() == 1 ? " " : "s ") +
                    list_text(u.pinned_layers) + " recompute in the plan, but " + framework +
                    " recomputes decoder layers only; that recompute is not written out.");
}

std::string shell_quote(const std::string& arg) {
  const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == ',';
  });
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string flow_text(const json& value) {
  if (!value.is_array()) return value.dump();
  std::string out = "[";
  for (std::size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + flow_text(value[i]);
  return out + "]";
}

std::pair<int, int> body_range(const Plan& plan, const Model& model, int v) {
  const auto starts = plan.stage_starts();
  const int first = starts[static_cast<std::size_t>(v)] + (v == 0 ? model.pinned_first : 0);
  const int end = starts[static_cast<std::size_t>(v) + 1] - (v == plan.virtual_stages() - 1 ? model.pinned_last : 0);
  return {first, end};
}

void comment_changes(ExportOutput& out, const std::vector<std::string>& changes) {
  for (const std::string& change : changes) {
    out.text += "# changed: ";
    out.text += change;
    out.text += '\n';
  }
}

MindFormersCounts mindformers_counts(const Plan& plan, const Model& model) {
  const int V = plan.virtual_stages();
  const int full = model.option_index("full");
  const int selective = model.option_index("selective");
  const int comm = model.option_index("comm");
  const int both = model.option_index("selective_comm");
  MindFormersCounts out;
  out.recompute.assign(static_cast<std::size_t>(V), 0);
  out.select.assign(static_cast<std::size_t>(V), 0);
  out.select_comm.assign(static_cast<std::size_t>(V), 0);
  for (int v = 0; v < V; ++v) {
    const auto [first, end] = body_range(plan, model, v);
    // Classes in MindFormers' order of precedence: 0 none, 1 comm only, 2 select only, 3 both, 4 full.
    std::vector<int> cls;
    int n_full = 0, n_both = 0, n_sel = 0, n_comm = 0;
    for (int i = first; i < end; ++i) {
      const int o = plan.recompute[static_cast<std::size_t>(i)];
      const int c = o < 0 ? 0 : o == full ? 4 : o == both ? 3 : o == selective ? 2 : o == comm ? 1 : 0;
      n_full += c == 4;
      n_both += c == 3;
      n_sel += c == 2;
      n_comm += c == 1;
      cls.push_back(c);
    }
    const auto vs = static_cast<std::size_t>(v);
    out.recompute[vs] = n_full;
    out.select[vs] = n_full + n_both + n_sel;
    out.select_comm[vs] = n_full + n_both + n_comm;
    if (n_sel > 0 && n_comm > 0) {
      out.mixed.push_back(v);
      continue;
    }
    // What MindFormers does with these counts: each list covers the first layers of the stage.
    for (std::size_t k = 0; k < cls.size(); ++k) {
      const int kk = static_cast<int>(k);
      const int expected = kk < out.recompute[vs]                               ? 4
                           : kk < std::min(out.select[vs], out.select_comm[vs]) ? 3
                           : kk < out.select[vs]                                ? 2
                           : kk < out.select_comm[vs]                           ? 1
                                                                                : 0;
      if (expected != cls[k]) {
        out.moved.push_back(v);
        break;
      }
    }
  }
  return out;
}

ExportOutput export_mindformers(const Plan& plan, const Model& model, const MegatronRun* run) {
  const int pp = plan.pp_degree, vpp = plan.vpp_degree, V = plan.virtual_stages();
  const int body = model.body_count();
  json notes = json::array();
  const MindFormersCounts counts = mindformers_counts(plan, model);
  const std::vector<int>& recompute = counts.recompute;
  const std::vector<int>& select = counts.select;
  const std::vector<int>& select_comm = counts.select_comm;
  const std::vector<int>& moved = counts.moved;
  const std::vector<int>& mixed = counts.mixed;
  std::vector<int> offset = layer_offset_of(plan, model);
  if (!moved.empty())
    notes.push_back("on " + stages_text(moved) +
                    " the plan recomputes other layers than the first ones of the stage; "
                    "MindFormers recomputes the first N layers of each stage, so these counts keep each stage's "
                    "number of recomputed layers but not which layers they are.");
  if (!mixed.empty())
    notes.push_back(stages_text(mixed) +
                    " mix select-only and comm-only recompute; MindFormers applies "
                    "select_recompute and select_comm_recompute to the first layers of a stage, so the layers of the "
                    "shorter list get both kinds there (as SAPP's own output does).");
  note_unmapped(unmapped_recompute(plan, model, {"full", "selective", "comm", "selective_comm"}), "MindFormers", notes);
  if (plan.schedule != Schedule::one_f_one_b && plan.schedule != Schedule::interleaved_1f1b)
    notes.push_back(std::string("the plan's schedule ") + schedule_name(plan.schedule) +
                    " is not written out; MindFormers runs 1F1B (interleaved when pp_interleave_num > 1).");
  if (is_v_shape(plan.schedule))
    notes.push_back(std::string(schedule_name(plan.schedule)) +
                    " places the chunks in a V (chunk 1 of stage s is virtual stage 2 pp - 1 - s); the [vpp][pp] lists "
                    "follow that placement, while MindFormers' interleaved placement puts virtual stage pp + s there, "
                    "so the same lists describe a different split under it.");

  // The run's parallel sizes, when the request states them, under MindFormers' parallel_config keys.
  json parallel_config = {{"pipeline_stage", pp}, {"micro_batch_num", plan.micro_batch_num}};
  json parallel = json::object();
  if (run) {
    if (run->dp) parallel_config["data_parallel"] = *run->dp;
    parallel_config["model_parallel"] = run->tp;
    parallel_config["context_parallel"] = run->cp;
    if (run->ep > 1 || run->num_experts.value_or(0) > 0) parallel_config["expert_parallel"] = run->ep;
    parallel_config["use_seq_parallel"] = run->sequence_parallel;
    if (!run->sharding.empty()) parallel["enable_parallel_optimizer"] = run->sharding != "none";
    if (run->world_size && run->dp && *run->dp * run->tp * run->cp * pp != *run->world_size)
      notes.push_back(
          "MindFormers needs data_parallel x model_parallel x context_parallel x pipeline_stage = the "
          "device count: " +
          str(*run->dp) + " x " + str(run->tp) + " x " + str(run->cp) + " x " + str(pp) + " is not the world size " +
          str(*run->world_size) + ".");
  }
  if (vpp > 1) parallel["pipeline_config"] = {{"pipeline_interleave", true}, {"pipeline_scheduler", "1f1b"}};

  ExportOutput out;
  out.json = {{"offset", framework_list(offset, plan)},
              {"recompute", framework_list(recompute, plan)},
              {"select_recompute", framework_list(select, plan)},
              {"select_comm_recompute", framework_list(select_comm, plan)},
              {"pipeline_stage", pp},
              {"pp_interleave_num", vpp},
              {"num_layers", body},
              {"micro_batch_num", plan.micro_batch_num},
              {"parallel_config", parallel_config},
              {"notes", notes}};

  std::string y;
  y += "# MindFormers pipeline settings written by PPB " + std::string(version()) + ": pp " + str(pp) + ", vpp " +
       str(vpp) + ", " + str(plan.micro_batch_num) + " micro batches, " + str(body) + " decoder layers.\n";
  y += "# offset: layers per stage minus " + str(body) + " // " + str(V) + " = " + str(body / V) +
       "; recompute lists: the first N layers of each stage.\n";
  const auto yaml_scalar = [](const json& v) {
    return v.is_boolean()  ? std::string(v.get<bool>() ? "True" : "False")
           : v.is_string() ? "'" + v.get<std::string>() + "'"
                           : v.dump();
  };
  if (!parallel.empty()) {
    y += "parallel:\n";
    if (parallel.contains("enable_parallel_optimizer"))
      y += "  enable_parallel_optimizer: " + yaml_scalar(parallel["enable_parallel_optimizer"]) + "\n";
    if (vpp > 1) y += "  pipeline_config:\n    pipeline_interleave: True\n    pipeline_scheduler: '1f1b'\n";
  }
  y += "parallel_config:\n";
  for (const char* key : {"data_parallel", "model_parallel", "context_parallel", "expert_parallel", "pipeline_stage",
                          "micro_batch_num", "use_seq_parallel"})
    if (parallel_config.contains(key)) y += std::string("  ") + key + ": " + yaml_scalar(parallel_config[key]) + "\n";
  y += "model:\n  model_config:\n    num_layers: " + str(body) + "\n";
  if (vpp > 1) y += "    pp_interleave_num: " + str(vpp) + "\n";
  y += "    offset: " + flow_text(out.json["offset"]) + "\n";
  y += "recompute_config:\n";
  y += "  recompute: " + flow_text(out.json["recompute"]) + "\n";
  y += "  select_recompute: " + flow_text(out.json["select_recompute"]) + "\n";
  y += "  select_comm_recompute: " + flow_text(out.json["select_comm_recompute"]) + "\n";
  for (const auto& note : notes) y += "# note: " + note.get<std::string>() + "\n";
  out.text = std::move(y);
  return out;
}

MegatronRecompute megatron_recompute(const Plan& plan, const Model& model, json& notes) {
  // Megatron-LM takes one granularity for all layers; full recompute is either every layer
  // (uniform) or the first N layers of every model chunk (block N, transformer_block.py).
  const int V = plan.virtual_stages();
  const int full = model.option_index("full");
  const int selective = model.option_index("selective");
  note_unmapped(unmapped_recompute(plan, model, {"full", "selective"}), "Megatron-LM", notes);
  std::vector<int> n_full(static_cast<std::size_t>(V), 0), n_sel(static_cast<std::size_t>(V), 0);
  std::vector<int> not_first;
  for (int v = 0; v < V; ++v) {
    const auto [b, e] = body_range(plan, model, v);
    bool prefix = true;
    for (int i = b; i < e; ++i) {
      const int o = plan.recompute[static_cast<std::size_t>(i)];
      const bool is_full = o >= 0 && o == full;
      if (is_full && i - b != n_full[static_cast<std::size_t>(v)]) prefix = false;
      if (is_full) ++n_full[static_cast<std::size_t>(v)];
      if (o >= 0 && o == selective) ++n_sel[static_cast<std::size_t>(v)];
    }
    if (!prefix) not_first.push_back(v);
  }
  const int total_full = std::accumulate(n_full.begin(), n_full.end(), 0);
  const int total_sel = std::accumulate(n_sel.begin(), n_sel.end(), 0);
  const int total_body = model.body_count();
  MegatronRecompute out;
  if (total_full > 0 && total_sel > 0) {
    notes.push_back("the plan mixes full (" + str(total_full) + " layers) and selective (" + str(total_sel) +
                    " layers) recompute; Megatron-LM takes one --recompute-granularity, so no recompute "
                    "arguments are written.");
  } else if (total_full > 0) {
    // Block N recomputes min(N, layers of the chunk) in every chunk (a chunk shorter than N entirely).
    const std::vector<int> body = body_layers_per_stage(model, plan.stage_layers);
    const int n = *std::max_element(n_full.begin(), n_full.end());
    bool same = true;
    for (std::size_t v = 0; v < n_full.size(); ++v) same = same && n_full[v] == std::min(n, body[v]);
    if (total_full == total_body) {
      out.method = MegatronRecompute::Method::uniform;
    } else if (same) {
      out.method = MegatronRecompute::Method::block;
      out.block_layers = n;
      if (!not_first.empty())
        notes.push_back("on " + stages_text(not_first) + " the plan fully recomputes other layers than the first " +
                        str(n) + "; the block method recomputes the first ones (the same number).");
    } else {
      std::vector<int> per_stage(n_full.begin(), n_full.end());
      notes.push_back("full recompute differs between virtual stages (" + list_text(per_stage) +
                      " layers); Megatron-LM's block method takes one --recompute-num-layers for every stage, so no "
                      "recompute arguments are written.");
    }
  } else if (total_sel > 0) {
    if (total_sel == total_body) {
      // PPB's "selective" is Megatron-LM's selective recompute of the attention core
      // (--recompute-modules core_attn), as the transformer generator prices it.
      out.method = MegatronRecompute::Method::selective;
    } else {
      notes.push_back("selective recompute on " + str(total_sel) + " of " + str(total_body) +
                      " layers cannot be expressed: Megatron-LM applies selective recompute to every layer; no "
                      "recompute arguments are written.");
    }
  }
  return out;
}

ExportOutput export_megatron(const Plan& plan, const Model& model, const MegatronRun* run) {
  const int pp = plan.pp_degree, vpp = plan.vpp_degree;
  std::vector<int> body = body_layers_per_stage(model, plan.stage_layers);
  const auto body_at = [&](int chunk, int stage) { return body[static_cast<std::size_t>(chunk * pp + stage)]; };
  std::vector<std::string> args = {"--num-layers", str(model.body_count()), "--pipeline-model-parallel-size", str(pp)};
  json notes = json::array();
  const std::string layout = megatron_layout(plan, model);

  // The partition, in the simplest form Megatron-LM reproduces exactly.
  const bool even = std::all_of(body.begin(), body.end(), [&](int n) { return n == body.front(); });
  std::optional<int> first, last;  // decoder layers of the first / last pipeline rank, all chunks
  bool first_last = false;
  if (!even && pp >= 2) {
    // Megatron-LM gives the first rank `first` layers and the last rank `last`, split evenly over
    // the chunks, and every other rank the same share of the rest (transformer_layer.py).
    bool uniform = true;
    const int f = body_at(0, 0), l = body_at(0, pp - 1), m = pp > 2 ? body_at(0, 1) : l;
    for (int c = 0; c < vpp; ++c)
      for (int s = 0; s < pp; ++s) uniform = uniform && body_at(c, s) == (s == 0 ? f : s == pp - 1 ? l : m);
    if (uniform) {
      first_last = true;
      if (f != m) first = f * vpp;
      if (pp > 2 && l != m) last = l * vpp;
    }
  }
  if (even || first_last) {
    if (first) args.insert(args.end(), {"--decoder-first-pipeline-num-layers", str(*first)});
    if (last) args.insert(args.end(), {"--decoder-last-pipeline-num-layers", str(*last)});
    if (vpp > 1) args.insert(args.end(), {"--num-virtual-stages-per-pipeline-rank", str(vpp)});
  } else {
    args.insert(args.end(), {"--pipeline-model-parallel-layout", layout});
  }
  if (model.pinned_first == 0)
    notes.push_back(
        "the model has no pinned-first layer, but Megatron-LM always builds the embedding on the first "
        "stage (E in the layout); its cost is not in the plan.");
  if (model.pinned_last == 0)
    notes.push_back(
        "the model has no pinned-last layer, but Megatron-LM always builds the output layer and loss on "
        "the last stage (L in the layout); their cost is not in the plan.");
  if (vpp > 1 && pp <= 2)
    notes.push_back(
        "Megatron-LM's interleaved schedule needs --pipeline-model-parallel-size above 2, or above 1 with "
        "--overlap-p2p-comm.");
  if (plan.schedule == Schedule::interleaved_1f1b_overlap) {
    // Megatron-LM's batch-level EP overlap (transformer_config.py checks its conditions).
    args.insert(args.end(), {"--overlap-moe-expert-parallel-comm", "--delay-wgrad-compute"});
    notes.push_back(
        "--overlap-moe-expert-parallel-comm needs expert parallelism (--expert-model-parallel-size above 1), "
        "the alltoall or flex token dispatcher, bf16 or fp16, and no full recompute nor a recompute method; "
        "Megatron-LM asserts each when it starts.");
  }
  if (plan.schedule != Schedule::one_f_one_b && !is_interleaved(plan.schedule))
    notes.push_back(std::string("the plan's schedule ") + schedule_name(plan.schedule) +
                    " has no argument here; Megatron-LM runs 1F1B, interleaved when there are virtual stages (the "
                    "PyTorch export writes this schedule's program as it was simulated).");
  if (is_v_shape(plan.schedule))
    notes.push_back(
        std::string(schedule_name(plan.schedule)) +
        " places virtual stage v >= pp on rank 2 pp - 1 - v (a V); Megatron-LM places it on rank v mod pp, "
        "so these arguments, written in model order, run the same layers per virtual stage on other ranks.");

  if (run) {
    const std::vector<std::string> more = megatron_run_args(plan, *run, notes);
    args.insert(args.end(), more.begin(), more.end());
  }
  const MegatronRecompute recompute = megatron_recompute(plan, model, notes);
  if (plan.schedule == Schedule::interleaved_1f1b_overlap &&
      (recompute.method == MegatronRecompute::Method::uniform || recompute.method == MegatronRecompute::Method::block))
    notes.push_back(
        "the plan recomputes whole layers, which Megatron-LM refuses with --overlap-moe-expert-parallel-comm; "
        "balance it again (the balancer leaves the \"full\" option out under interleaved_1f1b_overlap).");
  switch (recompute.method) {
    case MegatronRecompute::Method::none: break;
    case MegatronRecompute::Method::uniform:
      args.insert(args.end(),
                  {"--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1"});
      break;
    case MegatronRecompute::Method::block:
      args.insert(args.end(), {"--recompute-granularity", "full", "--recompute-method", "block",
                               "--recompute-num-layers", str(recompute.block_layers)});
      break;
    case MegatronRecompute::Method::selective:
      args.insert(args.end(), {"--recompute-granularity", "selective", "--recompute-modules", "core_attn"});
      break;
  }

  ExportOutput out;
  std::string text;
  for (const auto& a : args) {  // appended piece by piece: GCC 12 warns on "literal" + string (-Wrestrict)
    if (!text.empty()) text += ' ';
    text += shell_quote(a);
  }
  out.json = {{"args", args}, {"layout", layout}, {"notes", notes}};
  out.text = std::move(text);
  return out;
}

}  // namespace ppb
