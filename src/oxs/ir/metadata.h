// Annotations that ONNX attaches to models, graphs, nodes, values, tensors
// and functions but that no operator reads: key/value metadata and the
// distributed-execution descriptions of IR version 11 (devices a model runs
// on; how a node's tensors are sharded over them). The IR keeps them so a
// model round-trips; passes copy them along with what they annotate.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace oxs::ir {

// Key/value pairs in their original order (duplicates kept).
using StringPairs = std::vector<std::pair<std::string, std::string>>;

// ModelProto.configuration: a named set of devices.
struct DeviceConfiguration {
  std::string name;
  int32_t num_devices = 0;
  std::vector<std::string> devices;
  bool has_name = false, has_num_devices = false;  // proto2 presence
  bool operator==(const DeviceConfiguration&) const = default;
};

// One axis of a sharding: a dimension split into `num_shards` parts.
struct SimpleShardedDim {
  enum class Kind : uint8_t { None, Value, Param };
  Kind kind = Kind::None;
  int64_t dim_value = 0;
  std::string dim_param;
  int64_t num_shards = 0;
  bool has_num_shards = false;
  bool operator==(const SimpleShardedDim&) const = default;
};

struct ShardedDim {
  int64_t axis = 0;
  bool has_axis = false;
  std::vector<SimpleShardedDim> simple_sharding;
  bool operator==(const ShardedDim&) const = default;
};

// How one tensor of a node is distributed over devices.
struct ShardingSpec {
  std::string tensor_name;
  bool has_tensor_name = false;
  std::vector<int64_t> devices;
  std::vector<std::pair<int64_t, std::vector<int64_t>>> index_to_device_group_map;
  std::vector<ShardedDim> sharded_dims;
  bool operator==(const ShardingSpec&) const = default;
};

// NodeProto.device_configurations: a node's placement under one model
// configuration.
struct NodeDeviceConfiguration {
  std::string configuration_id;
  bool has_configuration_id = false;
  std::vector<ShardingSpec> sharding_specs;
  int32_t pipeline_stage = 0;
  bool has_pipeline_stage = false;
  bool operator==(const NodeDeviceConfiguration&) const = default;
};

}  // namespace oxs::ir
