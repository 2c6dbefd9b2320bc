// Package static embeds the console's CSS and JavaScript. The web package
// serves them under content-hashed names.
package static

import "embed"

// FS holds the asset files. An embed directive needs a package-level variable.
// editor.js and terminal.js (with terminal.css) are bundles; their sources,
// npm files and node_modules under editor/ and terminal/ match none of the
// patterns and stay out.
//
//go:embed *.css *.js live/*.js
var FS embed.FS
