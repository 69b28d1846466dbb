package check

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// chromium finds a Chromium or Chrome binary: $CAUSEWAY_CHROMIUM, else
// the first of Debian's and Google's names on $PATH. Without one the test
// skips, loudly — unless $CAUSEWAY_REQUIRE_CHROMIUM is set (as .ci/run
// sets it after installing Debian's chromium), when it fails.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CAUSEWAY_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "NO CHROMIUM: the HTML page of check --html is NOT checked in a browser; install it (Debian: apt-get install chromium) or set CAUSEWAY_CHROMIUM"
	if os.Getenv("CAUSEWAY_REQUIRE_CHROMIUM") != "" {
		t.Fatal(msg + " (CAUSEWAY_REQUIRE_CHROMIUM is set)")
	}
	fmt.Fprintln(os.Stderr, "check: SKIPPING TestHTMLInChromium: "+msg)
	t.Skip(msg)
	return ""
}

// headless runs the browser on page with args; it returns stdout.
func headless(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	// A bound on a hung browser, not a measure of speed.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir(),
	}, args...)
	all = append(all, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, all...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, all, err, errb.String())
	}
	return out.Bytes()
}

// TestHTMLInChromium opens the page of testdata/violations.jsonl in
// headless Chromium: the DOM as the browser built it draws every
// violation's lanes, operations and arrows (inside the <svg>, not spilled
// out of it by the HTML parser), and a screenshot of it has the window's
// size, is not blank, and shows the blue of reads-from arrows and the red
// of the read that breaks the rule.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	res, page := violationsPage(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "violations.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}

	dom := headless(t, bin, file, "--dump-dom")
	doc, err := html.Parse(bytes.NewReader(dom))
	if err != nil {
		t.Fatal(err)
	}
	checkDrawn(t, doc, res)

	const w, h = 1280, 1400
	shot := filepath.Join(dir, "violations.png")
	headless(t, bin, file, fmt.Sprintf("--window-size=%d,%d", w, h), "--screenshot="+shot)
	if out := os.Getenv("CAUSEWAY_SCREENSHOT"); out != "" { // to look at it
		if b, err := os.ReadFile(shot); err == nil {
			_ = os.WriteFile(out, b, 0o644)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("screenshot %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	inked, blue, red := countColours(img)
	t.Logf("screenshot: %d pixels not white, %d reads-from blue, %d violating red", inked, blue, red)
	// The legend alone has under 100 pixels of each colour and the text a
	// few hundred; the drawings' five blue arrows and the red box, arrow
	// and explanation bar have thousands.
	if inked < w*h/50 {
		t.Errorf("screenshot nearly blank: %d of %d pixels not white", inked, w*h)
	}
	if blue < 1500 {
		t.Errorf("screenshot shows %d pixels of reads-from blue, want the arrows' 1500 or more", blue)
	}
	if red < 1500 {
		t.Errorf("screenshot shows %d pixels of violating red, want the box's and arrows' 1500 or more", red)
	}
}

// countColours counts pixels that are not white (nor the page's light
// greys), and those close to the page's reads-from blue (#2563eb) and
// violating red (#dc2626).
func countColours(img image.Image) (inked, blue, red int) {
	near := func(r, g, b, R, G, B int) bool {
		d := func(a, b int) int {
			if a > b {
				return a - b
			}
			return b - a
		}
		return d(r, R)+d(g, G)+d(b, B) < 60
	}
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r32, g32, b32, _ := img.At(x, y).RGBA()
			r, g, b := int(r32>>8), int(g32>>8), int(b32>>8)
			if r+g+b < 3*235 {
				inked++
			}
			switch {
			case near(r, g, b, 0x25, 0x63, 0xeb):
				blue++
			case near(r, g, b, 0xdc, 0x26, 0x26):
				red++
			}
		}
	}
	return inked, blue, red
}
