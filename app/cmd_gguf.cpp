// `phasebench gguf-info FILE`: what a GGUF file holds and whether phasebench can run it.
// `phasebench export-gguf --model PRESET [--weights W] [--seed N] --out FILE`: a preset with its
// synthetic weights as a GGUF file that llama.cpp loads, for engine comparisons on identical
// weights.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "app/commands.h"
#include "engine/gguf/gguf_reader.h"
#include "engine/model/gguf_export.h"
#include "engine/model/gguf_plan.h"
#include "engine/model/presets.h"
#include "harness/errors.h"

namespace pb::app {
namespace {

constexpr size_t kShownStringBytes = 72;  // chat templates run to kilobytes

std::string size_text(uint64_t bytes) {
  char text[64];
  if (bytes >= (1ull << 30)) std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / (1ull << 30));
  else if (bytes >= (1ull << 20)) std::snprintf(text, sizeof text, "%.2f MiB", double(bytes) / (1ull << 20));
  else std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024);
  return text;
}

std::string value_text(const gguf::GgufValue& v) {
  if (v.type() == gguf::GgufType::STRING && v.as_string().size() > kShownStringBytes) {
    const std::string cut = v.as_string().substr(0, kShownStringBytes);
    return gguf::GgufValue(cut).to_string() + "... (" + std::to_string(v.as_string().size()) + " bytes)";
  }
  return v.to_string();  // arrays show their first elements and their length
}

void print_metadata(const gguf::GgufFile& file) {
  std::cout << "metadata (" << file.metadata().size() << " keys):\n";
  size_t width = 0, type_width = 0;
  for (const auto& kv : file.metadata()) {
    width = std::max(width, kv.key.size());
    type_width = std::max(type_width, kv.value.type_description().size());
  }
  for (const auto& kv : file.metadata()) {
    std::string key = kv.key, type = kv.value.type_description();
    key.resize(width, ' ');
    type.resize(type_width, ' ');
    std::cout << "  " << key << "  " << type << "  " << value_text(kv.value) << "\n";
  }
}

void print_tensors(const gguf::GgufFile& file) {
  uint64_t total = 0;
  size_t width = 4;
  for (const auto& t : file.tensors()) width = std::max(width, t.name.size());
  std::cout << "tensors (" << file.tensors().size() << "):\n";
  std::string header = "name";
  header.resize(width, ' ');
  std::cout << "  " << header << "  type     shape (ne, innermost first)   bytes\n";
  for (const auto& t : file.tensors()) {
    std::string name = t.name, type = t.type_name(), shape = dims_string(t.dims);
    name.resize(width, ' ');
    type.resize(std::max<size_t>(type.size(), 7), ' ');
    shape.resize(std::max<size_t>(shape.size(), 28), ' ');
    const std::string bytes = t.byte_size ? std::to_string(*t.byte_size) : "unknown";
    std::cout << "  " << name << "  " << type << "  " << shape << "  " << bytes << "\n";
    total += t.byte_size.value_or(0);
  }
  std::cout << "  total " << total << " bytes (" << size_text(total) << ")\n";
}

std::string layer_summary(const ModelConfig& c) {
  uint32_t deltanet = 0, sliding = 0;
  for (uint32_t l = 0; l < c.n_layers; ++l) {
    deltanet += c.layer_kind(l) == LayerKind::DeltaNet;
    sliding += c.layer_kind(l) == LayerKind::SlidingAttention;
  }
  std::string s = std::to_string(c.n_layers) + " layers";
  if (deltanet) s += " (" + std::to_string(deltanet) + " DeltaNet + " + std::to_string(c.n_layers - deltanet) + " attention)";
  if (sliding) s += " (" + std::to_string(sliding) + " sliding-window + " + std::to_string(c.n_layers - sliding) + " global)";
  return s;
}

void print_verdict(const gguf::GgufFile& file) {
  try {
    const GgufPlan plan = plan_gguf(file);
    const ModelConfig& c = plan.config;
    std::cout << "phasebench can run it: yes\n  " << c.name << ": " << architecture_name(c.arch) << ", "
              << layer_summary(c) << ", hidden " << c.hidden << ", " << c.n_heads << "/" << c.n_kv_heads
              << " heads of " << c.head_dim << ", vocab " << c.vocab;
    if (c.has_moe()) std::cout << ", " << c.moe.n_experts << " experts top-" << c.moe.top_k;
    std::cout << ", weights " << size_text(plan_bytes(plan.specs)) << "\n";
    for (const auto& note : plan.notes) std::cout << "  note: " << note << "\n";
  } catch (const UsageError& e) {
    std::cout << "phasebench can run it: no\n  " << e.what() << "\n";
  }
}

int gguf_info(const std::string& path) {
  const gguf::GgufFile file = gguf::GgufFile::open(path);  // a malformed file is bad input (2)
  const gguf::GgufValue* arch = file.find("general.architecture");
  std::cout << path << ": GGUF v" << file.version() << ", " << size_text(file.file_size()) << ", alignment "
            << file.alignment() << "\n";
  std::cout << "architecture: " << (arch ? value_text(*arch) : std::string("(none)")) << "\n";
  print_metadata(file);
  print_tensors(file);
  print_verdict(file);
  return 0;
}

struct ExportCommand {
  std::string model;
  std::string weights = "q4_k_m";
  uint32_t seed = 1;
  std::string out;
};

int export_command(const ExportCommand& o) {
  const ModelConfig config = preset(o.model);
  const auto choice = parse_weight_choice(o.weights);
  if (!choice) {
    throw UsageError("--weights: \"" + o.weights + "\" is not allowed; expected " + std::string(kWeightChoiceValues));
  }
  const gguf::GgufWriter writer = gguf_export_writer(config, *choice, o.seed);
  writer.write(o.out);
  std::cout << "wrote " << o.out << ": " << architecture_name(config.arch) << " '" << config.name << "', "
            << writer.tensor_count() << " tensors, " << writer.file_size() << " bytes ("
            << size_text(writer.file_size()) << "), weights " << choice->name() << ", seed " << o.seed << "\n";
  return 0;
}

}  // namespace

void add_gguf_commands(CLI::App& app, Action& action) {
  auto info_path = std::make_shared<std::string>();
  auto* info = app.add_subcommand("gguf-info", "Show a GGUF file's metadata and tensors, and whether phasebench can run it");
  info->add_option("file", *info_path, "GGUF file")->required();
  info->callback([info_path, &action] { action = [info_path] { return gguf_info(*info_path); }; });

  auto o = std::make_shared<ExportCommand>();
  auto* exp = app.add_subcommand("export-gguf", "Write a preset with its synthetic weights as a GGUF file llama.cpp loads");
  exp->add_option("--model", o->model, "Model preset")->required();
  exp->add_option("--weights", o->weights, "Weight formats: q4_k_m, f32, f16, q8_0, q4_k, q6_k")->capture_default_str();
  exp->add_option("--seed", o->seed, "Seed of the synthetic weights")->capture_default_str();
  exp->add_option("--out", o->out, "GGUF file to write")->required();
  exp->callback([o, &action] { action = [o] { return export_command(*o); }; });
}

}  // namespace pb::app
