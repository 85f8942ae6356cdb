package cli

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strings"
)

// The chart of `simrun policy -svg`: requests per 100 ms over virtual time, one line per policy
// (each the mean over the seeds), with labelled axes and a legend. Plain SVG with its styles
// inline: any browser shows it, nothing else is needed.

// Chart geometry, in SVG user units.
const (
	chartWidth        = 960
	chartHeight       = 540
	chartLeft         = 72
	chartRight        = 210 // room for the legend
	chartTop          = 64
	chartBottom       = 64
	chartPointsMax    = 1500 // longer series are reduced to their peaks, so files stay small
	chartBucketSecond = 0.1  // one load bucket: 100 ms
)

// chartColours are told apart by most colour-blind readers (Wong's palette); past them, lines
// repeat the colours dashed.
var chartColours = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999"}

// policyChartSVG draws rows' load series.
func policyChartSVG(p policyPlan, rows []policyRow) []byte {
	buckets, peak := 1, 1.0
	for _, r := range rows {
		buckets = max(buckets, len(r.LoadPer100Ms))
		for _, v := range r.LoadPer100Ms {
			peak = math.Max(peak, v)
		}
	}
	group := (buckets + chartPointsMax - 1) / chartPointsMax // buckets per point
	xMax := niceCeil(float64(buckets) * chartBucketSecond)
	yMax := niceCeil(peak)
	plotW := float64(chartWidth - chartLeft - chartRight)
	plotH := float64(chartHeight - chartTop - chartBottom)
	x := func(seconds float64) float64 { return chartLeft + seconds/xMax*plotW }
	y := func(load float64) float64 { return chartTop + plotH - load/yMax*plotH }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", chartWidth, chartHeight, chartWidth, chartHeight)
	fmt.Fprintf(&b, "<title>simrun policy: load over time per policy</title>\n")
	fmt.Fprintf(&b, "<desc>%s. Each line is the mean over the seeds of the requests that reached the provider in each 100 ms of virtual time", escapeXML(describeHerd(p)))
	if group > 1 {
		fmt.Fprintf(&b, "; each point is the highest of %d consecutive buckets", group)
	}
	fmt.Fprintf(&b, ".</desc>\n")
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", chartWidth, chartHeight)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="16" font-weight="bold">Load over time per policy</text>`+"\n", chartLeft)
	fmt.Fprintf(&b, `<text x="%d" y="44" fill="#444444">%s</text>`+"\n", chartLeft, escapeXML(describeHerd(p)))

	// Grid, ticks and tick labels.
	fmt.Fprintf(&b, `<g stroke="#e0e0e0" stroke-width="1">`+"\n")
	for _, t := range ticks(yMax) {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", chartLeft, y(t), chartLeft+plotW, y(t))
	}
	for _, t := range ticks(xMax) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f"/>`+"\n", x(t), chartTop, x(t), chartTop+plotH)
	}
	fmt.Fprintf(&b, "</g>\n<g fill=\"#333333\">\n")
	for _, t := range ticks(yMax) {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", chartLeft-6, y(t), formatTick(t))
	}
	for _, t := range ticks(xMax) {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x(t), chartTop+plotH+18, formatTick(t))
	}
	fmt.Fprintf(&b, "</g>\n")
	// Axes and their labels.
	fmt.Fprintf(&b, `<g stroke="#333333" stroke-width="1.5"><line x1="%d" y1="%d" x2="%d" y2="%.1f"/><line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f"/></g>`+"\n",
		chartLeft, chartTop, chartLeft, chartTop+plotH, chartLeft, chartTop+plotH, chartLeft+plotW, chartTop+plotH)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">virtual time (s)</text>`+"\n", chartLeft+plotW/2, chartHeight-18)
	fmt.Fprintf(&b, `<text transform="translate(20 %.1f) rotate(-90)" text-anchor="middle">requests per 100 ms (mean over seeds)</text>`+"\n", chartTop+plotH/2)

	// One line per policy, and the legend.
	for i, r := range rows {
		colour, dash := chartColours[i%len(chartColours)], ""
		if i >= len(chartColours) {
			dash = ` stroke-dasharray="6 3"`
		}
		var points []string
		for start := 0; start < len(r.LoadPer100Ms); start += group {
			v := 0.0
			for _, load := range r.LoadPer100Ms[start:min(start+group, len(r.LoadPer100Ms))] {
				v = math.Max(v, load)
			}
			points = append(points, fmt.Sprintf("%.1f,%.1f", x(float64(start)*chartBucketSecond), y(v)))
		}
		if len(points) == 1 {
			points = append(points, fmt.Sprintf("%.1f,%.1f", x(float64(group)*chartBucketSecond), y(r.LoadPer100Ms[0])))
		}
		fmt.Fprintf(&b, `<polyline class="policy" data-policy="%s" fill="none" stroke="%s" stroke-width="1.5" stroke-linejoin="round"%s points="%s"><title>%s</title></polyline>`+"\n",
			escapeXML(r.Policy), colour, dash, strings.Join(points, " "), escapeXML(r.Policy+": "+r.Key))
		ly := chartTop + 10 + 20*i
		lx := chartWidth - chartRight + 16
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"%s/>`+"\n", lx, ly, lx+24, ly, colour, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d" dominant-baseline="middle">%s</text>`+"\n", lx+30, ly, escapeXML(r.Policy))
	}
	fmt.Fprintf(&b, "</svg>\n")
	return b.Bytes()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	power := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*power >= v {
			return m * power
		}
	}
	return 10 * power
}

// ticks divides [0, top] (a niceCeil) into four to ten steps of 1, 2 or 5 times a power of ten.
func ticks(top float64) []float64 {
	step := niceCeil(top / 10)
	var out []float64
	for i := 0; float64(i)*step <= top*(1+1e-9); i++ {
		out = append(out, float64(i)*step)
	}
	return out
}

// formatTick writes a tick value without trailing zeros.
func formatTick(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// escapeXML escapes text for an attribute or an element.
func escapeXML(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
