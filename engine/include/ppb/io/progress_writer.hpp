// The progress of work run in slices (a balance, a search) as JSON, in the one shape the page's worker
// forwards and the page reads (docs/contract.md, "Progress"): every field is always there, null where it
// does not apply to that work.
//   {"command": "balance", "phase": "search", "done": 120, "total": null, "simulations": 37,
//    "incumbent_ms": 4188.2, "lower_bound_ms": 4100.5, "finished": false}
//   {"command": "search", "phase": "candidates", "done": 3, "total": 12, "simulations": null,
//    "incumbent_ms": null, "lower_bound_ms": null, "finished": false}
#pragma once

#include <string>

#include "ppb/balance/balance.hpp"
#include "ppb/search/search.hpp"

namespace ppb {

// A balance: phase the phase next to run ("done" at the end), done its search nodes so far, total
// null (a branch and bound has no known end), simulations, the best simulated step time and the lower
// bound proven so far (each null until known).
std::string progress_json(const BalanceProgress& progress);
// A search: phase "candidates" ("done" at the end), done the candidates evaluated, total the
// candidates in the space after skips; simulations, incumbent_ms and lower_bound_ms null.
std::string progress_json(const SearchProgress& progress);

}  // namespace ppb
