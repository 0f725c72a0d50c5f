package eval

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// Row is one configuration's summary. Pass1 is pass@1: the mean, over
// tasks, of the share of attempts that passed; PassK is pass@k for k =
// the attempts per task (a task counts when any attempt passed). Costs
// are USD: MeanCost per attempt, CostPerSolved the total cost over the
// passing attempts (0 when none passed). Tokens and seconds are means
// per attempt. CostKnown is false when some attempt's agent reported no
// cost (its costs then count as 0).
type Row struct {
	Config        string  `json:"config"`
	Tasks         int     `json:"tasks"`
	Attempts      int     `json:"attempts"`
	K             int     `json:"k"`
	Passed        int     `json:"passed"`
	Pass1         float64 `json:"pass_at_1"`
	PassK         float64 `json:"pass_at_k"`
	MeanCost      float64 `json:"mean_cost_usd"`
	CostPerSolved float64 `json:"cost_per_solved_usd"`
	CostKnown     bool    `json:"cost_known"`
	InputTokens   float64 `json:"mean_input_tokens"`
	CachedTokens  float64 `json:"mean_cached_tokens"`
	OutputTokens  float64 `json:"mean_output_tokens"`
	Seconds       float64 `json:"mean_seconds"`
	Skipped       int     `json:"skipped"`
}

// TaskRow is one task's outcomes side by side: per configuration,
// "passed/attempts" ("skipped" for a task that cannot run here).
type TaskRow struct {
	Task     string            `json:"task"`
	Outcomes map[string]string `json:"outcomes"`
}

// Report is a summary of one or more runs' results.
type Report struct {
	Rows  []Row     `json:"rows"`
	Tasks []TaskRow `json:"tasks"`
}

// Summarize computes the report of results: one row per configuration
// (in first-seen order), one task row per task (in name order).
func Summarize(results []Result) Report {
	var order []string
	by := map[string][]Result{}
	for _, r := range results {
		l := r.Config.Label()
		if _, ok := by[l]; !ok {
			order = append(order, l)
		}
		by[l] = append(by[l], r)
	}
	var rep Report
	for _, l := range order {
		rep.Rows = append(rep.Rows, summarizeConfig(l, by[l]))
	}
	rep.Tasks = taskRows(results)
	return rep
}

// summarizeConfig is the row of one configuration's results.
func summarizeConfig(label string, rs []Result) Row {
	row := Row{Config: label, CostKnown: true}
	perTask := map[string][2]int{} // passed, attempts
	var cost, solvedCost, secs float64
	var in, cached, out int
	for _, r := range rs {
		if r.Skipped != "" {
			row.Skipped++
			continue
		}
		pt := perTask[r.Task]
		pt[1]++
		row.Attempts++
		if r.Pass {
			pt[0]++
			row.Passed++
			solvedCost += r.Agent.CostUSD
		}
		perTask[r.Task] = pt
		cost += r.Agent.CostUSD
		row.CostKnown = row.CostKnown && r.Agent.CostKnown
		in, cached, out = in+r.Agent.InputTokens, cached+r.Agent.CachedTokens, out+r.Agent.OutputTokens
		secs += r.Seconds
	}
	row.Tasks = len(perTask)
	if row.Tasks == 0 {
		return row
	}
	for _, pt := range perTask {
		row.Pass1 += float64(pt[0]) / float64(pt[1])
		if pt[0] > 0 {
			row.PassK++
		}
		row.K = max(row.K, pt[1])
	}
	row.Pass1 /= float64(row.Tasks)
	row.PassK /= float64(row.Tasks)
	n := float64(row.Attempts)
	row.MeanCost, row.Seconds = cost/n, secs/n
	row.InputTokens, row.CachedTokens, row.OutputTokens = float64(in)/n, float64(cached)/n, float64(out)/n
	if row.Passed > 0 {
		row.CostPerSolved = cost / float64(row.Passed)
	}
	return row
}

// taskRows is the per-task table.
func taskRows(results []Result) []TaskRow {
	counts := map[string]map[string][2]int{}
	skipped := map[string]bool{}
	for _, r := range results {
		l := r.Config.Label()
		if counts[r.Task] == nil {
			counts[r.Task] = map[string][2]int{}
		}
		if r.Skipped != "" {
			skipped[r.Task] = true
			continue
		}
		c := counts[r.Task][l]
		c[1]++
		if r.Pass {
			c[0]++
		}
		counts[r.Task][l] = c
	}
	var rows []TaskRow
	for task, byConfig := range counts {
		tr := TaskRow{Task: task, Outcomes: map[string]string{}}
		for l, c := range byConfig {
			tr.Outcomes[l] = fmt.Sprintf("%d/%d", c[0], c[1])
		}
		if skipped[task] && len(byConfig) == 0 {
			tr.Outcomes["*"] = "skipped"
		}
		rows = append(rows, tr)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Task < rows[j].Task })
	return rows
}

// WriteText writes the report as two tables.
func (rep Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONFIG\tTASKS\tPASS@1\tPASS@K\tMEAN COST\tCOST/SOLVED\tIN TOK\tCACHED\tOUT TOK\tMEAN TIME")
	for _, r := range rep.Rows {
		cost, solved := money(r.MeanCost, r.CostKnown), money(r.CostPerSolved, r.CostKnown && r.Passed > 0)
		fmt.Fprintf(tw, "%s\t%d\t%.0f%%\t%.0f%% (k=%d)\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.1fs\n", r.Config, r.Tasks, 100*r.Pass1, 100*r.PassK, r.K,
			cost, solved, r.InputTokens, r.CachedTokens, r.OutputTokens, r.Seconds)
	}
	fmt.Fprintln(tw)
	labels := rep.labels()
	fmt.Fprintln(tw, "TASK\t"+strings.Join(labels, "\t"))
	for _, t := range rep.Tasks {
		cells := []string{t.Task}
		for _, l := range labels {
			cells = append(cells, cellOf(t, l))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// cellOf is task t's outcome for configuration l.
func cellOf(t TaskRow, l string) string {
	if v, ok := t.Outcomes[l]; ok {
		return v
	}
	if v, ok := t.Outcomes["*"]; ok {
		return v
	}
	return "-"
}

// labels are the configurations in row order.
func (rep Report) labels() []string {
	out := make([]string, len(rep.Rows))
	for i, r := range rep.Rows {
		out[i] = r.Config
	}
	return out
}

// money formats USD, "n/a" when unknown.
func money(v float64, known bool) string {
	if !known {
		return "n/a"
	}
	return fmt.Sprintf("$%.4f", v)
}

// Flip is a task whose outcome differs between two runs: pass in A
// (at least half its attempts passed) and not in B, or the reverse.
type Flip struct {
	Task   string `json:"task"`
	Config string `json:"config"`
	A      string `json:"a"`
	B      string `json:"b"`
	Gained bool   `json:"gained"` // B passes where A did not
}

// Compare returns the tasks that flipped between runs a and b, per
// configuration present in both (or, when the runs share none, between
// their first configurations: comparing two models or settings).
func Compare(a, b []Result) []Flip {
	ra, rb := Summarize(a), Summarize(b)
	pairs := [][2]string{}
	for _, l := range ra.labels() {
		if slices.Contains(rb.labels(), l) {
			pairs = append(pairs, [2]string{l, l})
		}
	}
	if len(pairs) == 0 && len(ra.Rows) > 0 && len(rb.Rows) > 0 {
		pairs = append(pairs, [2]string{ra.Rows[0].Config, rb.Rows[0].Config})
	}
	var flips []Flip
	for _, p := range pairs {
		oa, ob := outcomes(a, p[0]), outcomes(b, p[1])
		for task, pa := range oa {
			pb, ok := ob[task]
			if !ok || pa.pass() == pb.pass() {
				continue
			}
			label := p[0]
			if p[0] != p[1] {
				label = p[0] + " → " + p[1]
			}
			flips = append(flips, Flip{Task: task, Config: label, A: pa.String(), B: pb.String(), Gained: pb.pass()})
		}
	}
	sort.Slice(flips, func(i, j int) bool { return flips[i].Task < flips[j].Task })
	return flips
}

// tally is a task's passed and attempted counts.
type tally struct{ passed, attempts int }

func (t tally) pass() bool     { return t.attempts > 0 && 2*t.passed >= t.attempts }
func (t tally) String() string { return fmt.Sprintf("%d/%d", t.passed, t.attempts) }

// outcomes tallies label's attempts per task.
func outcomes(rs []Result, label string) map[string]tally {
	out := map[string]tally{}
	for _, r := range rs {
		if r.Config.Label() != label || r.Skipped != "" {
			continue
		}
		t := out[r.Task]
		t.attempts++
		if r.Pass {
			t.passed++
		}
		out[r.Task] = t
	}
	return out
}

// WriteHTML writes the report as one self-contained HTML page (no
// external scripts, styles or fonts): a chart of pass@1 against mean
// cost per task (an inline SVG), the summary table and the per-task
// table.
func (rep Report) WriteHTML(w io.Writer, title string) error {
	return htmlPage().Execute(w, map[string]any{"Title": title, "Rep": rep, "Chart": template.HTML(rep.chart()), "Labels": rep.labels()})
}

// chart is the SVG scatter plot of pass@1 (y, 0–100%) against mean
// cost per attempt (x, 0 to the largest cost), one labelled point per
// configuration.
func (rep Report) chart() string {
	const w, h, pad = 640.0, 360.0, 48.0
	maxCost := 0.0
	for _, r := range rep.Rows {
		maxCost = math.Max(maxCost, r.MeanCost)
	}
	if maxCost == 0 {
		maxCost = 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img" aria-label="pass rate against cost">`, w, h)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/><line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/>`,
		pad, h-pad, w-pad/2, h-pad, pad, pad/2, pad, h-pad)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="12" text-anchor="middle">mean cost per task (USD, max %.4f)</text>`, w/2, h-10, maxCost)
	fmt.Fprintf(&b, `<text x="14" y="%.0f" font-size="12" transform="rotate(-90 14 %.0f)" text-anchor="middle">pass@1</text>`, h/2, h/2)
	for i, r := range rep.Rows {
		x := pad + (w-1.5*pad)*r.MeanCost/maxCost
		y := (h - pad) - (h-1.5*pad)*r.Pass1
		fmt.Fprintf(&b, `<circle class="point" cx="%.1f" cy="%.1f" r="6" fill="%s"/><text x="%.1f" y="%.1f" font-size="12">%s (%.0f%%)</text>`,
			x, y, palette(i), x+9, y-8, template.HTMLEscapeString(r.Config), 100*r.Pass1)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// palette is the colour of the i-th configuration.
func palette(i int) string {
	colours := []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"}
	return colours[i%len(colours)]
}

// pct formats a share as a percentage.
func pct(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

// htmlPage is the report page's template (parsed when a report is
// written, not at start-up).
func htmlPage() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{"pct": pct, "money": money, "cell": cellOf}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}th:first-child,td:first-child{text-align:left}.pass{background:#e6f4e6}.fail{background:#fbe9e9}</style>
</head><body><h1>{{.Title}}</h1>
{{.Chart}}
<table id="summary"><tr><th>configuration</th><th>tasks</th><th>pass@1</th><th>pass@k</th><th>mean cost</th><th>cost per solved</th><th>input tokens</th><th>cached</th><th>output tokens</th><th>mean time (s)</th></tr>
{{range .Rep.Rows}}<tr><td>{{.Config}}</td><td>{{.Tasks}}</td><td>{{pct .Pass1}}</td><td>{{pct .PassK}} (k={{.K}})</td><td>{{money .MeanCost .CostKnown}}</td><td>{{money .CostPerSolved .CostKnown}}</td><td>{{printf "%.0f" .InputTokens}}</td><td>{{printf "%.0f" .CachedTokens}}</td><td>{{printf "%.0f" .OutputTokens}}</td><td>{{printf "%.1f" .Seconds}}</td></tr>
{{end}}</table>
<table id="tasks"><tr><th>task</th>{{range .Labels}}<th>{{.}}</th>{{end}}</tr>
{{range $t := .Rep.Tasks}}<tr><td>{{$t.Task}}</td>{{range $.Labels}}<td>{{cell $t .}}</td>{{end}}</tr>
{{end}}</table></body></html>
`))
}
