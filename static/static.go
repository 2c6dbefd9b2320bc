// Package static embeds the console's CSS and JavaScript. The web package
// serves them under content-hashed names.
package static

import "embed"

// FS holds the asset files. An embed directive needs a package-level variable.
//
//go:embed *.css *.js live/*.js
var FS embed.FS
