// The ANSI palettes stay readable on the console's surfaces, light and dark.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PALETTES, terminalTheme } from "../src/theme.js";

// WCAG 2 relative luminance and contrast ratio of two #rrggbb colours.
function luminance(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

// app.css's --surface in each scheme, the terminal's background.
const SURFACE = { light: "#ffffff", dark: "#171b22" };

test("every colour a program prints as text is readable (3:1, WCAG's large-text floor)", () => {
  for (const scheme of ["light", "dark"]) {
    for (const [name, colour] of Object.entries(PALETTES[scheme])) {
      // Black on a dark terminal is its background colour (bars, fills), as in every dark palette.
      if (scheme === "dark" && name === "black") continue;
      const ratio = contrast(colour, SURFACE[scheme]);
      assert.ok(ratio >= 3, `${scheme} ${name} ${colour}: ${ratio.toFixed(2)}:1`);
    }
  }
});

test("the theme takes the page's colours and falls back to app.css's", () => {
  const page = terminalTheme("dark", { background: "rgb(23, 27, 34)", foreground: "rgb(230, 233, 238)", accent: "rgb(122, 162, 255)" });
  assert.equal(page.background, "rgb(23, 27, 34)");
  assert.equal(page.cursor, "rgb(230, 233, 238)");
  assert.equal(page.cursorAccent, "rgb(23, 27, 34)");
  assert.equal(page.red, PALETTES.dark.red);
  const bare = terminalTheme("light");
  assert.equal(bare.background, SURFACE.light);
  assert.equal(bare.blue, PALETTES.light.blue);
  assert.equal(terminalTheme("unknown").background, SURFACE.light);
});
