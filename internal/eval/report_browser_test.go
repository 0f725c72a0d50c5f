package eval

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The HTML report renders in Chromium from a file, with nothing fetched:
// the chart has a point per configuration, the tables their rows, and a
// screenshot shows the points' colours.
func TestHTMLReportRendersInChromium(t *testing.T) {
	bin := os.Getenv("AIDEX_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if bin == "" {
			bin, _ = exec.LookPath(name)
		}
	}
	switch {
	case bin == "" && os.Getenv("CI") != "":
		t.Fatal("no chromium found, and CI is set: .ci/run installs Debian's chromium")
	case bin == "":
		t.Skip("no chromium found (apt-get install chromium; .ci/run does)")
	}
	rep := Summarize(sampleResults())
	file := filepath.Join(t.TempDir(), "report.html")
	var b bytes.Buffer
	if err := rep.WriteHTML(&b, "sample"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(900, 800), chromedp.UserDataDir(t.TempDir()))
	if runtime.GOOS == "linux" {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file)); err != nil {
		t.Fatal(err)
	}
	points, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#chart circle.point').length`))
	if err != nil || points != 2 {
		t.Fatalf("chart points %d (%v), want one per configuration", points, err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#summary tr').length + document.querySelectorAll('#tasks tr').length`))
	if err != nil || rows != 3+4 {
		t.Fatalf("table rows %d (%v), want 3 + 4 (headers, 2 configurations, 3 tasks)", rows, err)
	}
	found := screenshotColours(t, ctx)
	if !found["blue"] || !found["red"] {
		t.Fatalf("the screenshot does not show both chart points (colours found: %v)", found)
	}
}

// screenshotColours reports which of the chart's first two point colours
// a screenshot of the page shows.
func screenshotColours(t *testing.T, ctx context.Context) map[string]bool {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			switch [3]uint32{r >> 8, g >> 8, b >> 8} {
			case [3]uint32{0x1f, 0x77, 0xb4}:
				found["blue"] = true
			case [3]uint32{0xd6, 0x27, 0x28}:
				found["red"] = true
			}
		}
	}
	return found
}
