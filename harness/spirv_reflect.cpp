#include "harness/spirv_reflect.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace pb {
namespace {

// Opcodes, decorations and storage classes from the SPIR-V specification.
enum : uint32_t {
  kOpExecutionMode = 16,
  kOpTypeInt = 21,
  kOpTypeFloat = 22,
  kOpTypeVector = 23,
  kOpTypeArray = 28,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpConstant = 43,
  kOpSpecConstant = 50,
  kOpVariable = 59,
  kOpDecorate = 71,
  kOpExecutionModeId = 331,
  kOpMemberDecorate = 72,
  kDecorationSpecId = 1,
  kDecorationArrayStride = 6,
  kDecorationNonWritable = 24,
  kDecorationBinding = 33,
  kDecorationDescriptorSet = 34,
  kDecorationOffset = 35,
  kExecutionModeLocalSize = 17,
  kExecutionModeLocalSizeId = 38,
  kStorageUniform = 2,
  kStoragePushConstant = 9,
  kStorageStorageBuffer = 12,
  kSpirvMagic = 0x07230203,
};

struct Type {
  uint32_t opcode = 0;
  std::vector<uint32_t> operands;  // the instruction's operands after the result id
};

struct Module {
  std::map<uint32_t, Type> types;
  std::map<uint32_t, uint32_t> constants;                     // id -> 32-bit value
  std::map<uint32_t, std::map<uint32_t, uint32_t>> decorations;  // id -> decoration -> literal
  std::map<uint32_t, std::map<uint32_t, uint32_t>> member_offsets;  // struct -> member -> offset
  std::map<uint32_t, bool> member_non_writable;               // struct -> any member NonWritable
  struct Variable {
    uint32_t id, pointer_type, storage_class;
  };
  std::vector<Variable> variables;
};

uint32_t type_size(const Module& m, uint32_t id, const std::string& name) {
  const auto it = m.types.find(id);
  if (it == m.types.end()) throw std::runtime_error(name + ": SPIR-V type %" + std::to_string(id) + " unknown");
  const Type& t = it->second;
  switch (t.opcode) {
    case kOpTypeInt:
    case kOpTypeFloat:
      return t.operands.at(0) / 8;
    case kOpTypeVector:
      return type_size(m, t.operands.at(0), name) * t.operands.at(1);
    case kOpTypeArray: {
      const uint32_t length = m.constants.at(t.operands.at(1));
      const auto deco = m.decorations.find(id);
      uint32_t stride = type_size(m, t.operands.at(0), name);
      if (deco != m.decorations.end() && deco->second.count(kDecorationArrayStride)) {
        stride = deco->second.at(kDecorationArrayStride);
      }
      return length * stride;
    }
    case kOpTypeStruct: {
      uint32_t size = 0;
      const auto offsets = m.member_offsets.find(id);
      for (uint32_t i = 0; i < t.operands.size(); ++i) {
        uint32_t offset = 0;
        if (offsets != m.member_offsets.end() && offsets->second.count(i)) {
          offset = offsets->second.at(i);
        }
        size = std::max(size, offset + type_size(m, t.operands[i], name));
      }
      return size;
    }
    default:
      throw std::runtime_error(name + ": unsupported type in push-constant block (opcode " +
                               std::to_string(t.opcode) + ")");
  }
}

}  // namespace

SpirvReflection reflect_spirv(std::span<const uint32_t> words, const std::string& name) {
  if (words.size() < 5 || words[0] != kSpirvMagic) {
    throw std::runtime_error(name + ": not a SPIR-V module");
  }
  Module m;
  SpirvReflection out;
  uint32_t local_size_ids[3] = {0, 0, 0};
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    const uint32_t opcode = words[at] & 0xffff;
    if (count == 0 || at + count > words.size()) {
      throw std::runtime_error(name + ": truncated SPIR-V instruction at word " + std::to_string(at));
    }
    const auto op = words.subspan(at + 1, count - 1);
    switch (opcode) {
      case kOpTypeInt:
      case kOpTypeFloat:
      case kOpTypeVector:
      case kOpTypeArray:
      case kOpTypeStruct:
      case kOpTypePointer:
        m.types[op[0]] = Type{opcode, {op.begin() + 1, op.end()}};
        break;
      case kOpConstant:
      case kOpSpecConstant:  // its default value
        m.constants[op[1]] = op[2];
        break;
      case kOpVariable:
        m.variables.push_back({op[1], op[0], op[2]});
        break;
      case kOpDecorate:
        m.decorations[op[0]][op[1]] = op.size() > 2 ? op[2] : 1;
        if (op[1] == kDecorationSpecId) out.spec_ids.push_back(op[2]);
        break;
      case kOpMemberDecorate:
        if (op[2] == kDecorationOffset) m.member_offsets[op[0]][op[1]] = op[3];
        if (op[2] == kDecorationNonWritable) m.member_non_writable[op[0]] = true;
        break;
      case kOpExecutionMode:
        if (op[1] == kExecutionModeLocalSize) {
          for (int i = 0; i < 3; ++i) out.local_size[i] = op[2 + i];
        }
        break;
      case kOpExecutionModeId:  // SPIR-V 1.6 names the sizes by constant ids
        if (op[1] == kExecutionModeLocalSizeId) {
          for (int i = 0; i < 3; ++i) local_size_ids[i] = op[2 + i];
        }
        break;
      default:
        break;
    }
    at += count;
  }

  for (int i = 0; i < 3; ++i) {
    if (local_size_ids[i] && m.constants.count(local_size_ids[i])) {
      out.local_size[i] = m.constants.at(local_size_ids[i]);
      const auto deco = m.decorations.find(local_size_ids[i]);
      if (deco != m.decorations.end() && deco->second.count(kDecorationSpecId)) {
        out.local_size_spec_id[i] = static_cast<int32_t>(deco->second.at(kDecorationSpecId));
      }
    }
  }
  for (const auto& v : m.variables) {
    const Type& pointer = m.types.at(v.pointer_type);
    const uint32_t pointee = pointer.operands.at(1);
    if (v.storage_class == kStoragePushConstant) {
      out.push_constant_size = type_size(m, pointee, name);
    } else if (v.storage_class == kStorageStorageBuffer || v.storage_class == kStorageUniform) {
      const auto deco = m.decorations.find(v.id);
      if (deco == m.decorations.end() || !deco->second.count(kDecorationBinding)) continue;
      const uint32_t set =
          deco->second.count(kDecorationDescriptorSet) ? deco->second.at(kDecorationDescriptorSet) : 0;
      if (set != 0) {
        throw std::runtime_error(name + ": binding in descriptor set " + std::to_string(set) +
                                 "; phasebench kernels use set 0 only");
      }
      const bool read_only = deco->second.count(kDecorationNonWritable) ||
                             m.member_non_writable.count(pointee);
      out.bindings.push_back({deco->second.at(kDecorationBinding), read_only});
    }
  }
  std::sort(out.bindings.begin(), out.bindings.end(),
            [](const auto& a, const auto& b) { return a.binding < b.binding; });
  // A kernel may declare one binding as several blocks (the same bytes read as words and as
  // 16-byte vectors): one descriptor, read-only only if every view of it is.
  std::vector<SpirvBinding> merged;
  for (const auto& b : out.bindings) {
    if (!merged.empty() && merged.back().binding == b.binding) {
      merged.back().read_only = merged.back().read_only && b.read_only;
    } else {
      merged.push_back(b);
    }
  }
  out.bindings = std::move(merged);
  std::sort(out.spec_ids.begin(), out.spec_ids.end());
  for (size_t i = 0; i < out.bindings.size(); ++i) {
    if (out.bindings[i].binding != i) {
      throw std::runtime_error(name + ": bindings must be numbered 0..N-1 without gaps");
    }
  }
  return out;
}

}  // namespace pb
