// Package static embeds the console's CSS and JavaScript. The web package
// serves them under content-hashed names.
package static

import "embed"

// FS holds the asset files. An embed directive needs a package-level variable.
// editor.js is the YAML editor's bundle; its sources, npm files and
// node_modules under editor/ match none of the patterns and stay out.
//
//go:embed *.css *.js live/*.js
var FS embed.FS
