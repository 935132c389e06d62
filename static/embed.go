// Package static holds the files the browser loads: the built CSS, htmx and
// its websocket extension (vendored by `make generate`), Marquee's own
// JavaScript and images. They are embedded in the binary and served under
// /static/ with a content hash in every URL, so they can be cached forever.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

//go:embed css js vendor img
var files embed.FS

// FS is the embedded files, named as under static/ (css/app.css, ...).
var FS fs.FS = files

var hashes = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	_ = fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		m[name] = hex.EncodeToString(sum[:6])
		return nil
	})
	return m
})

// Hash returns the content hash of the file name, or "" when there is none.
func Hash(name string) string { return hashes()[name] }

// URL returns the address of the file name with its content hash, e.g.
// /static/css/app.css?v=3f2a9c01d4e7. A new build changes the address of
// every file whose content changed, and only of those.
func URL(name string) string {
	if h := Hash(name); h != "" {
		return "/static/" + name + "?v=" + h
	}
	return "/static/" + name
}
