// The cluster command: what a cluster gives one pipeline depth, by the search's own rule
// (cluster_share), so that a page can show it before a search runs without a rule of its own.
//   {"training": {"world_size": 256, "tp_degree": 8, "global_batch_size": 256}, "pipeline": {"pp_degree": 8}}
//   (pp_degree 1 when not given)
//   -> {"dp_degree": 4, "micro_batch_num": 64, "problems": [], ...}
#include "command_support.hpp"
#include "core/field_reader.hpp"
#include "core/message_text.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/search/search_space.hpp"

namespace ppb::detail {

using nlohmann::json;

CommandOutput run_cluster(json document, const RequestClock& /*clock*/) {
  Diagnostics d;
  if (!document.is_object()) {
    d.error("TYPE_MISMATCH", "", std::string("the request must be an object, not ") + type_name(document) + ".");
    return invalid(d);
  }
  const IntegerRange degree{1, limits::max_batch};
  SearchCluster cluster;
  std::optional<std::int64_t> world, global_batch_size, pp;
  std::int64_t ep = 1;
  {
    FieldReader top(document, "", d);
    FieldReader training(top.object("training"), "/training", d);
    training.require("world_size", "give training.world_size, the devices of the cluster.");
    world = training.integer("world_size", degree);
    cluster.tp_degree = training.integer("tp_degree", degree).value_or(1);
    cluster.cp_degree = training.integer("cp_degree", degree).value_or(1);
    ep = training.integer("ep_degree", degree).value_or(1);
    global_batch_size = training.integer("global_batch_size", degree);
    cluster.micro_batch_size = training.integer("micro_batch_size", degree).value_or(1);
    // The experts' own tensor parallel size, where the search reads it (tp when not given).
    FieldReader parallel(top.object("parallel"), "/parallel", d);
    cluster.expert_tp_degree = parallel.integer("expert_tp_degree", degree).value_or(cluster.tp_degree);
    FieldReader pipeline(top.object("pipeline"), "/pipeline", d);
    pp = pipeline.integer("pp_degree", {1, limits::max_pp_degree, "PP_DEGREE_LIMIT"});
    if (!pipeline.has("pp_degree")) pp = 1;  // the estimate's default
  }
  if (!d.ok() || !world || !pp) return invalid(d);
  cluster.world_size = *world;
  cluster.global_batch_size = global_batch_size.value_or(1);
  const int pp_degree = static_cast<int>(*pp);
  // Without a global batch only dp_degree is known.
  const ClusterShare share =
      global_batch_size ? cluster_share(cluster, pp_degree, ep) : cluster_dp_degree(cluster, pp_degree, ep);
  json problems = json::array();
  if (!share.group.empty())
    problems.push_back({{"code", share.code}, {"path", share.path}, {"message", share.message}});
  auto or_null = [](const std::optional<std::int64_t>& x) { return x ? json(*x) : json(nullptr); };
  json result = {{"world_size", cluster.world_size},
                 {"pp_degree", pp_degree},
                 {"tp_degree", cluster.tp_degree},
                 {"cp_degree", cluster.cp_degree},
                 {"ep_degree", ep},
                 {"expert_tp_degree", cluster.expert_tp_degree},
                 {"dp_degree", or_null(share.dp_degree)},
                 {"global_batch_size", or_null(global_batch_size)},
                 {"micro_batch_size", cluster.micro_batch_size},
                 {"micro_batch_num", or_null(share.micro_batch_num)},
                 {"problems", problems}};
  return ok_response("cluster", result, d);
}

}  // namespace ppb::detail
