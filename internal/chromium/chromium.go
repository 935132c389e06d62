// Package chromium starts Debian's Chromium headless the way Marquee's
// browser tests and browser benchmark both need it: as root, without a
// GPU, and without the background connections a closed network refuses.
package chromium

import (
	"os"

	"github.com/chromedp/chromedp"
)

// Path is the browser to drive: $CHROMIUM, else Debian's /usr/bin/chromium
// (scripts/chromium.sh installs it).
func Path() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// Options are the allocator options for a headless Chromium at path, plus
// extra.
func Options(path string, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	return append(opts, extra...)
}
