// A deep copy of a model (graph, subgraphs, functions, training info): the
// snapshot a verified pass is compared against and replayed from.
#pragma once

#include "oxs/ir/model.h"

namespace oxs::rewrite {

ir::Model clone_model(const ir::Model& m);

}  // namespace oxs::rewrite
