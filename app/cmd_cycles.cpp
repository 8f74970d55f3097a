// The optimization-cycle history (SQLite, default results/history.sqlite):
//   `phasebench cycle record --base B --cand C --change "..." [--revert | --keep] [gate flags]`
//   `phasebench cycles [--format md|json]`, `phasebench history [--format md|json]`.
// `cycle record` gates B against C exactly as `gate` does, prints the gate's run table, stores
// the outcome and exits with the gate's status (1 when the cycle regressed, was incorrect or
// failed; the cycle is recorded all the same).
#include <iostream>
#include <memory>

#include "app/commands.h"
#include "harness/errors.h"
#include "results/gate/gate.h"
#include "results/gate/table_format.h"
#include "results/history/cycle_store.h"
#include "results/history/cycle_table.h"
#include "results/history/history_db.h"

namespace pb::app {
namespace {

struct RecordCommand {
  std::string db = history::kDefaultHistoryPath;
  std::string base, cand, change;
  bool revert = false;
  bool keep = false;
  bool json = false;
  gate::GateFlags flags;
};

struct ListCommand {
  std::string db = history::kDefaultHistoryPath;
  std::string format = "md";
};

std::string value_or_dash(const std::optional<double>& v) { return v ? gate::significant(*v) : "-"; }

int record_command(const RecordCommand& o) {
  if (o.change.empty()) throw UsageError("--change: say what changed in this cycle");
  history::decide_kept("", o.revert, o.keep);  // contradicting flags fail before any work
  const ResultFile base = ResultFile::load(o.base);
  const ResultFile cand = ResultFile::load(o.cand);
  const auto report = gate::gate_results(base, o.base, cand, o.cand, o.flags.options());
  history::HistoryDb db(o.db);
  const std::string verdict = history::summarize_cycle(report).verdict;
  const auto row = history::record_cycle(db, o.change, history::decide_kept(verdict, o.revert, o.keep), report,
                                         history::file_record(base, o.base), history::file_record(cand, o.cand));
  print_gate_report(report, o.json, /*brief=*/true);
  std::cerr << "cycle " << row.cycle << " recorded in " << o.db << ": " << row.metric << " "
            << (row.delta ? gate::delta_with_interval(*row.delta, row.ci_low, row.ci_high) : "-") << ", " << row.verdict
            << ", " << (row.kept ? "kept" : "not kept") << "; best so far " << value_or_dash(row.best_so_far)
            << (row.best_cycle ? " (cycle " + std::to_string(*row.best_cycle) + ")" : " (base)") << std::endl;
  return gate::exit_status(report);
}

void check_format(const std::string& format) {
  if (format != "md" && format != "json") throw UsageError("--format: \"" + format + "\"; expected md or json");
}

int cycles_command(const ListCommand& o) {
  check_format(o.format);
  auto db = history::HistoryDb::open_existing(o.db);
  const auto rows = db ? history::list_cycles(*db) : std::vector<history::CycleRow>{};
  if (o.format == "json") {
    std::cout << history::cycles_json(rows).dump(2) << "\n";
  } else if (rows.empty()) {
    std::cout << "no cycles recorded in " << o.db << " yet (phasebench cycle record adds one)\n";
  } else {
    history::write_cycles_markdown(std::cout, rows);
  }
  return 0;
}

int history_command(const ListCommand& o) {
  check_format(o.format);
  auto db = history::HistoryDb::open_existing(o.db);
  const auto rows = db ? history::list_files(*db) : std::vector<history::FileRow>{};
  if (o.format == "json") {
    std::cout << history::files_json(rows).dump(2) << "\n";
  } else if (rows.empty()) {
    std::cout << "no result files recorded in " << o.db << " yet (phasebench cycle record adds them)\n";
  } else {
    history::write_files_markdown(std::cout, rows);
  }
  return 0;
}

void add_db_option(CLI::App& command, std::string& db) {
  command.add_option("--db", db, "History database (SQLite)")->capture_default_str();
}

}  // namespace

void add_cycle_commands(CLI::App& app, Action& action) {
  auto* cycle = app.add_subcommand("cycle", "Optimization cycles: record one");
  cycle->require_subcommand(1);
  auto r = std::make_shared<RecordCommand>();
  auto* record = cycle->add_subcommand("record", "Gate a cycle's base against its candidate and record it");
  record->add_option("--base", r->base, "Base result file (before the change)")->required();
  record->add_option("--cand", r->cand, "Candidate result file (after the change)")->required();
  record->add_option("--change", r->change, "What changed in this cycle")->required();
  record->add_flag("--revert", r->revert, "The change was reverted: not kept even when it wins");
  record->add_flag("--keep", r->keep, "The change was kept even though it did not win");
  record->add_flag("--json", r->json, "Print the gate report as JSON (schema phasebench.gate/1)");
  add_gate_flags(*record, r->flags);
  add_db_option(*record, r->db);
  record->callback([r, &action] { action = [r] { return record_command(*r); }; });

  auto c = std::make_shared<ListCommand>();
  auto* cycles = app.add_subcommand("cycles", "The cycle table: change, delta with interval, verdict, kept, best");
  cycles->add_option("--format", c->format, "md or json")->capture_default_str();
  add_db_option(*cycles, c->db);
  cycles->callback([c, &action] { action = [c] { return cycles_command(*c); }; });

  auto h = std::make_shared<ListCommand>();
  auto* hist = app.add_subcommand("history", "The recorded result files: when, device, git commit, file, verdict");
  hist->add_option("--format", h->format, "md or json")->capture_default_str();
  add_db_option(*hist, h->db);
  hist->callback([h, &action] { action = [h] { return history_command(*h); }; });
}

}  // namespace pb::app
