#include "tools/lab/report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "engine/core/printable.h"
#include "tools/lab/progress.h"

namespace ember::lab {

namespace {

std::string Format(const char* fmt, double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, x);
  return buffer;
}

std::string Count(uint64_t n) { return std::to_string(n); }

// A table of string cells: the first column left-aligned, the others right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void Print(const Style& style) const {
    std::vector<size_t> widths;
    for (const auto& row : rows_) {
      widths.resize(std::max(widths.size(), row.size()), 0);
      for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], Width(row[i]));
    }
    for (size_t r = 0; r < rows_.size(); ++r) {
      std::string line = "  ";
      for (size_t i = 0; i < rows_[r].size(); ++i) {
        const std::string& cell = rows_[r][i];
        const std::string pad(widths[i] - Width(cell), ' ');
        line += i == 0 ? cell + pad : pad + cell;
        if (i + 1 < rows_[r].size()) line += "  ";
      }
      std::printf("%s\n", r == 0 ? style.Bold(line).c_str() : line.c_str());
    }
  }

 private:
  // Display width: UTF-8 continuation bytes and color escapes (ESC ... m) take no column.
  static size_t Width(const std::string& s) {
    size_t width = 0;
    bool escape = false;
    for (char c : s) {
      if (escape) {
        escape = c != 'm';
      } else if (c == '\033') {
        escape = true;
      } else if ((c & 0xC0) != 0x80) {
        ++width;
      }
    }
    return width;
  }
  std::vector<std::vector<std::string>> rows_;
};

std::string Hits(const RunResult& r) {
  return Count(r.stats.cache_hits) + " (mem " + Count(r.MemoryHits()) + ", shm " +
         Count(r.stats.cache_hits_from_shm) + ", db " + Count(r.stats.cache_hits_from_db) + ")";
}

std::string Loaded(const RunResult& r) {
  return Count(r.stats.plans_loaded_from_shm) + " shm, " + Count(r.stats.plans_loaded_from_db) +
         " db";
}

std::string Check(const RunResult& r, const Style& style) {
  const std::string value = Format("%.2e", r.max_rel_error);
  return r.Passed() ? value + " " + style.Good("ok") : value + " " + style.Bad("FAIL");
}

// "12 (8 from shm, 4 from db)", "0"; refused stored binaries, when any, after them.
std::string KernelsLoaded(const RunResult& r) {
  const Stats& s = r.stats;
  const uint64_t loaded = s.kernels_loaded_from_shm + s.kernels_loaded_from_db;
  std::string text = Count(loaded);
  if (loaded > 0) {
    text += " (" + Count(s.kernels_loaded_from_shm) + " from shm, " +
            Count(s.kernels_loaded_from_db) + " from db)";
  }
  if (s.kernels_rebuilt > 0) text += "; " + Count(s.kernels_rebuilt) + " rebuilt";
  return text;
}

// "2 captured, 10 replays of 34 launches, 1 fallback; 40 windows, ended by 20 matmul, 10 wait,
// 10 other" (GraphStats), or "-" without any.
std::string Graphs(const RunResult& r) {
  const GraphStats& g = r.stats.graphs;
  const uint64_t fallbacks =
      g.fallback_diverged + g.fallback_ended_early + g.fallback_replay_failed;
  if (g.captures == 0 && g.replays == 0 && fallbacks == 0) return "-";
  std::string text = Count(g.captures) + " captured, " + Count(g.replays) + " replays of " +
                     Count(g.replayed_launches) + " launches";
  if (fallbacks > 0)
    text += ", " + Count(fallbacks) + (fallbacks == 1 ? " fallback" : " fallbacks");
  if (g.recipes_loaded > 0) text += "; " + Count(g.recipes_loaded) + " recipes loaded";
  // What ends windows bounds what a graph can stand for (the matmuls, above all).
  if (g.windows > 0) {
    text += "; " + Count(g.windows) + " windows, ended by " + Count(g.ends_matmul) + " matmul, " +
            Count(g.ends_host_wait) + " wait, " +
            Count(g.ends_other_work + g.ends_stream_switch + g.ends_full) + " other";
  }
  return text;
}

// The summary rows, figure name first; shared by the single and the side-by-side tables.
// The engine's start in parts (ember::StartBreakdown), those that took time; they overlap.
std::string StartParts(const StartBreakdown& start) {
  std::string text;
  auto part = [&](const char* name, double ms) {
    if (ms <= 0) return;
    if (!text.empty()) text += ", ";
    text += std::string(name) + " " + FormatMs(ms);
  };
  part("context", start.context_ms);
  part("plan db", start.plan_db_open_ms);
  part("libraries (beside)", start.libraries_ms);
  part("kernel loads", start.kernel_load_ms);
  part("kernel sources", start.kernel_source_ms);
  part("first op queued at", start.first_op_ms);
  return text.empty() ? "-" : text;
}

std::vector<std::pair<std::string, std::string>> SummaryRows(const RunResult& r,
                                                             const Style& style) {
  return {
      {"steps", std::to_string(r.steps)},
      {"explorations", Count(r.stats.explorations)},
      {"cache hits", Hits(r)},
      {"plans loaded", Loaded(r)},
      {"plans published", Count(r.stats.plans_published)},
      {"fused executions", Count(r.stats.fused_executions)},
      {"unfused operations", Count(r.stats.unfused_operations)},
      {"launches", Count(r.stats.launches)},
      {"graphs", Graphs(r)},
      {"kernels compiled",
       Count(r.stats.kernels_compiled) + " (" + FormatMs(r.stats.compile_ms) + ")"},
      {"kernels loaded", KernelsLoaded(r)},
      {"engine start", FormatMs(r.engine_start_ms)},
      {"  of which", StartParts(r.stats.start)},
      {"plan load time", FormatMs(r.stats.plan_load_ms)},
      {"time to first result", FormatMs(r.time_to_first_result_ms)},
      {"steady state per step", FormatMs(r.steady_ms_per_step)},
      {"total", FormatMs(r.total_ms)},
      {"max relative error", Check(r, style)},
  };
}

// Prints `text` in parentheses, dimmed, wrapped at 96 columns with a two-space indent.
void PrintNote(const std::string& text, const Style& style) {
  if (text.empty()) return;
  std::string line;
  std::string rest = "(" + ShownText(text) + ")";
  while (!rest.empty()) {
    size_t cut = rest.size();
    if (cut > 94) {
      cut = rest.rfind(' ', 94);
      if (cut == std::string::npos || cut == 0) cut = 94;
    }
    std::printf("  %s\n", style.Dim(rest.substr(0, cut)).c_str());
    rest.erase(0, cut);
    while (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
  }
}

// Prints `text` wrapped at 96 columns: the first line after `first`, the others after `rest`.
void PrintWrapped(const std::string& first, const std::string& rest_indent, std::string text) {
  text = ShownText(text);  // miss lines and notes quote stored rows
  std::string indent = first;
  while (!text.empty()) {
    size_t cut = text.size();
    const size_t room = 96 - std::min<size_t>(indent.size(), 60);
    if (cut > room) {
      cut = text.rfind(' ', room);
      if (cut == std::string::npos || cut == 0) cut = room;
    }
    std::printf("%s%s\n", indent.c_str(), text.substr(0, cut).c_str());
    text.erase(0, cut);
    while (!text.empty() && text.front() == ' ') text.erase(0, 1);
    indent = rest_indent;
  }
}

// For each step that explored although plans were stored: why (the seed's question of the
// 64x32 step). Misses with nothing stored to compare with are first sightings, not shown.
void PrintStepMisses(const RunResult& r, const Style& style) {
  constexpr std::string_view kPrefix = "[plan] miss (";
  constexpr std::string_view kFirstSighting = "[plan] miss (no_candidate)";
  bool any = false;
  for (const StepRow& s : r.step_rows) {
    std::vector<std::string> shown;
    for (const std::string& line : s.misses) {
      if (line.starts_with(kFirstSighting) || !line.starts_with(kPrefix)) continue;
      // "[plan] miss (shape): nearest ..." -> "shape: nearest ..."
      std::string text = line.substr(kPrefix.size());
      const size_t close = text.find(')');
      if (close != std::string::npos) text.erase(close, 1);
      shown.push_back(std::move(text));
    }
    if (shown.empty()) continue;
    any = true;
    std::printf("\n  %s\n",
                style.Bold("why " + s.label + " explored, although plans were stored:").c_str());
    for (const std::string& text : shown) PrintWrapped("    ", "        ", text);
  }
  if (any) {
    std::printf("  %s\n", style
                              .Dim("(EMBER_LOG=medium logs every miss; ember-plans explain "
                                   "groups them by workload)")
                              .c_str());
  }
}

void PrintTitle(const RunResult& r, const std::string& device_note, const Style& style) {
  std::printf("%s\n", style.Bold("ember-lab " + r.scenario + " on " + r.device).c_str());
  std::printf("  plans: %s   workload: %s\n", r.database.c_str(), ShownText(r.workload).c_str());
  PrintNote(device_note, style);
}

std::string Detail(const RunResult& r, const std::string& key) {
  const auto it = r.details.find(key);
  return it == r.details.end() ? "" : Format("%g", it->second);
}

}  // namespace

Style Style::ForStdout() {
  const char* no_color = std::getenv("NO_COLOR");
  return {.color = StdoutIsTerminal() && (no_color == nullptr || *no_color == '\0')};
}

std::string Style::Bold(const std::string& s) const {
  return color ? "\033[1m" + s + "\033[0m" : s;
}
std::string Style::Dim(const std::string& s) const { return color ? "\033[2m" + s + "\033[0m" : s; }
std::string Style::Good(const std::string& s) const {
  return color ? "\033[32m" + s + "\033[0m" : s;
}
std::string Style::Bad(const std::string& s) const {
  return color ? "\033[1;31m" + s + "\033[0m" : s;
}

std::string FormatMs(double ms) {
  if (ms >= 1000.0) return Format("%.3f s", ms / 1000.0);
  if (ms >= 10.0) return Format("%.1f ms", ms);
  return Format("%.2f ms", ms);
}

void PrintRun(const RunResult& r, const std::string& device_note, const Style& style) {
  PrintTitle(r, device_note, style);
  if (!r.step_rows.empty()) {
    std::printf("\n");
    Table steps({"step", "explorations", "hits", "fused", "unfused ops", "launches", "time"});
    for (const StepRow& s : r.step_rows) {
      steps.Add({s.label, Count(s.explorations), Count(s.cache_hits), Count(s.fused_executions),
                 Count(s.unfused_operations), Count(s.launches), FormatMs(s.ms)});
    }
    steps.Print(style);
    if (r.scenario == "reuse") PrintStepMisses(r, style);
  }
  std::printf("\n");
  Table summary({"figure", "value"});
  for (const auto& [name, value] : SummaryRows(r, style)) summary.Add({name, value});
  summary.Print(style);
  if (r.scenario == "unrelated") {
    std::printf(
        "\n  first sync: %s ops -> %s launch(es), %s fused execution(s)"
        " (--log full shows the kernel's score)\n",
        Detail(r, "ops_per_sync").c_str(), Detail(r, "first_sync_launches").c_str(),
        Detail(r, "first_sync_fused_executions").c_str());
  }
  if (r.scenario == "dynamic") {
    const auto cap = r.details.find("max_explorations");
    const std::string cap_text =
        cap == r.details.end() || cap->second < 0 ? "unlimited" : Detail(r, "max_explorations");
    std::printf(
        "\n  exploration cap %s for workload %s, kept in the plan database: a later run\n"
        "  of this workload on it does not explore beyond the cap; misses run unfused.\n",
        cap_text.c_str(), ShownText(r.workload).c_str());
  }
}

void PrintColdWarm(const RunResult& cold, const RunResult& warm, const std::string& device_note,
                   const Style& style) {
  std::printf(
      "%s\n",
      style.Bold("ember-lab: " + cold.scenario + " block, cold then warm, on " + cold.device)
          .c_str());
  std::printf("  seq %s, width %s, heads %s, %d steps; plans: %s\n", Detail(cold, "seq").c_str(),
              Detail(cold, "width").c_str(), Detail(cold, "heads").c_str(), cold.steps,
              cold.database.c_str());
  PrintNote(device_note, style);
  std::printf("\n");
  Table table({"figure", "cold (fresh database)", "warm (same database)"});
  const auto cold_rows = SummaryRows(cold, style);
  const auto warm_rows = SummaryRows(warm, style);
  for (size_t i = 0; i < cold_rows.size(); ++i) {
    table.Add({cold_rows[i].first, cold_rows[i].second, warm_rows[i].second});
  }
  table.Print(style);
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  std::printf("\n  cold/warm: time to first result %.1fx, total %.1fx\n",
              ratio(cold.time_to_first_result_ms, warm.time_to_first_result_ms),
              ratio(cold.total_ms, warm.total_ms));
}

void PrintWorkers(const std::vector<RunResult>& workers, const Style& style) {
  if (workers.empty()) return;
  const RunResult& first = workers.front();
  std::printf("%s\n", style
                          .Bold("ember-lab workers " + std::to_string(workers.size()) + " " +
                                first.scenario + " on " + first.device)
                          .c_str());
  std::printf("  plans: %s   workload: %s\n\n", first.database.c_str(),
              ShownText(first.workload).c_str());
  Table table({"worker", "explored", "hits: mem", "shm", "db", "loaded: shm", "db",
               "kernels: compiled", "loaded", "first result", "total", "max error"});
  RunResult sum;
  double worst_error = 0;
  bool all_passed = true;
  for (size_t i = 0; i < workers.size(); ++i) {
    const RunResult& w = workers[i];
    table.Add({std::to_string(i), Count(w.stats.explorations), Count(w.MemoryHits()),
               Count(w.stats.cache_hits_from_shm), Count(w.stats.cache_hits_from_db),
               Count(w.stats.plans_loaded_from_shm), Count(w.stats.plans_loaded_from_db),
               Count(w.stats.kernels_compiled),
               Count(w.stats.kernels_loaded_from_shm + w.stats.kernels_loaded_from_db),
               FormatMs(w.time_to_first_result_ms), FormatMs(w.total_ms), Check(w, style)});
    sum.stats.explorations += w.stats.explorations;
    sum.stats.cache_hits += w.stats.cache_hits;
    sum.stats.cache_hits_from_shm += w.stats.cache_hits_from_shm;
    sum.stats.cache_hits_from_db += w.stats.cache_hits_from_db;
    sum.stats.plans_loaded_from_shm += w.stats.plans_loaded_from_shm;
    sum.stats.plans_loaded_from_db += w.stats.plans_loaded_from_db;
    sum.stats.kernels_compiled += w.stats.kernels_compiled;
    sum.stats.kernels_loaded_from_shm += w.stats.kernels_loaded_from_shm;
    sum.stats.kernels_loaded_from_db += w.stats.kernels_loaded_from_db;
    sum.time_to_first_result_ms = std::max(sum.time_to_first_result_ms, w.time_to_first_result_ms);
    sum.total_ms = std::max(sum.total_ms, w.total_ms);
    worst_error = std::max(worst_error, w.max_rel_error);
    all_passed = all_passed && w.Passed();
  }
  const std::string check =
      Format("%.2e", worst_error) + " " + (all_passed ? style.Good("ok") : style.Bad("FAIL"));
  table.Add({"all", Count(sum.stats.explorations), Count(sum.MemoryHits()),
             Count(sum.stats.cache_hits_from_shm), Count(sum.stats.cache_hits_from_db),
             Count(sum.stats.plans_loaded_from_shm), Count(sum.stats.plans_loaded_from_db),
             Count(sum.stats.kernels_compiled),
             Count(sum.stats.kernels_loaded_from_shm + sum.stats.kernels_loaded_from_db),
             FormatMs(sum.time_to_first_result_ms), FormatMs(sum.total_ms), check});
  table.Print(style);
  std::printf("\n  \"all\": sums of the counts, the slowest worker's times, the worst error.\n");
}

}  // namespace ember::lab
