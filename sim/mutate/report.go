package mutate

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Report is a mutation run: every mutant's result and what they add up to.
type Report struct {
	Mutants []Result `json:"mutants"`
	Total   int      `json:"total"`
	// Killed counts the mutants their own property caught; KilledByOther those only another
	// property caught; Survived those nothing caught within the bound; Errors those that did not
	// apply, build or run.
	Killed        int `json:"killed"`
	KilledByOther int `json:"killedByOther"`
	Survived      int `json:"survived"`
	Errors        int `json:"errors"`
	// KillRate is the share of mutants some property caught (Killed + KilledByOther) / Total.
	KillRate float64 `json:"killRate"`
	// MedianSeedsToKill is over the mutants some property caught.
	MedianSeedsToKill float64 `json:"medianSeedsToKill"`
	// Slowest is the caught mutant that took the most seeds to catch ("" if none was).
	Slowest            string `json:"slowest,omitempty"`
	SlowestSeedsToKill int64  `json:"slowestSeedsToKill,omitempty"`
	SeedsBound         int    `json:"seedsBound"`
}

// Summarise adds the results up.
func Summarise(results []Result, seedsBound int) Report {
	r := Report{Mutants: results, Total: len(results), SeedsBound: seedsBound}
	var seeds []int64
	for _, m := range results {
		switch m.Status {
		case Killed:
			r.Killed++
		case KilledByOther:
			r.KilledByOther++
		case Survived:
			r.Survived++
		case Error:
			r.Errors++
		}
		if m.Status == Killed || m.Status == KilledByOther {
			seeds = append(seeds, m.SeedsToKill)
			if m.SeedsToKill > r.SlowestSeedsToKill {
				r.Slowest, r.SlowestSeedsToKill = m.Name, m.SeedsToKill
			}
		}
	}
	if r.Total > 0 {
		r.KillRate = float64(r.Killed+r.KilledByOther) / float64(r.Total)
	}
	if n := len(seeds); n > 0 {
		sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
		r.MedianSeedsToKill = float64(seeds[n/2])
		if n%2 == 0 {
			r.MedianSeedsToKill = float64(seeds[n/2-1]+seeds[n/2]) / 2
		}
	}
	return r
}

// OK reports whether every mutant was caught by its own property.
func (r Report) OK() bool { return r.Killed == r.Total }

// WriteTable prints the table (mutant, killed by, seeds to kill, shrunk size, time) and the
// summary lines; errors follow the table, each naming its mutant.
func (r Report) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "mutant\tkilled by\tseeds to kill\tshrunk size\ttime")
	for _, m := range r.Mutants {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1fs\n", m.Name, killedBy(m), seedsToKill(m), shrunk(m), m.Seconds)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d mutants: %d killed by their property, %d only by another, %d survived %d seeds, %d errors\n",
		r.Total, r.Killed, r.KilledByOther, r.Survived, r.SeedsBound, r.Errors)
	fmt.Fprintf(w, "kill rate %.1f%%, median seeds to kill %g", 100*r.KillRate, r.MedianSeedsToKill)
	if r.Slowest != "" {
		fmt.Fprintf(w, ", slowest %s (%d seeds)", r.Slowest, r.SlowestSeedsToKill)
	}
	fmt.Fprintln(w)
	for _, m := range r.Mutants {
		if m.Status == Error {
			fmt.Fprintf(w, "\n%s: %s\n", m.Name, strings.TrimSpace(m.Error))
		}
	}
}

func killedBy(m Result) string {
	switch m.Status {
	case Killed:
		return m.KilledBy
	case KilledByOther:
		return fmt.Sprintf("%s (not %s)", m.KilledBy, m.Property)
	case Survived:
		return "SURVIVED"
	}
	return "ERROR"
}

func seedsToKill(m Result) string {
	if m.Status == Killed || m.Status == KilledByOther {
		return fmt.Sprint(m.SeedsToKill)
	}
	if m.Status == Survived {
		return fmt.Sprintf("> %d", m.SeedsRun)
	}
	return "-"
}

func shrunk(m Result) string {
	if m.SizeAfter == 0 {
		return "-"
	}
	return fmt.Sprintf("%d → %d", m.SizeBefore, m.SizeAfter)
}
