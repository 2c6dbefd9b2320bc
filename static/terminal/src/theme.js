// The terminal's colours, light and dark. Background, foreground and the
// cursor come from the console's own custom properties (static/app.css,
// read as computed colours by main.js); the sixteen ANSI colours are
// Primer's terminal palettes, chosen because every colour a program prints
// as text stays readable on the console's surfaces (test/theme.test.js).

export const PALETTES = {
  light: {
    black: "#24292f",
    red: "#cf222e",
    green: "#116329",
    yellow: "#7d4e00",
    blue: "#0969da",
    magenta: "#8250df",
    cyan: "#1b7c83",
    // "White" text on a light terminal is the grey programs mean by it.
    white: "#6e7781",
    brightBlack: "#57606a",
    brightRed: "#a40e26",
    brightGreen: "#1a7f37",
    brightYellow: "#633c01",
    brightBlue: "#0550ae",
    brightMagenta: "#6639ba",
    brightCyan: "#116470",
    brightWhite: "#7d8590",
  },
  dark: {
    black: "#484f58",
    red: "#ff7b72",
    green: "#3fb950",
    yellow: "#d29922",
    blue: "#58a6ff",
    magenta: "#bc8cff",
    cyan: "#39c5cf",
    white: "#b1bac4",
    brightBlack: "#8b949e",
    brightRed: "#ffa198",
    brightGreen: "#56d364",
    brightYellow: "#e3b341",
    brightBlue: "#79c0ff",
    brightMagenta: "#d2a8ff",
    brightCyan: "#56d4dd",
    brightWhite: "#f0f6fc",
  },
};

// Fallbacks when the page's styles are missing (the values of app.css).
const SURFACES = {
  light: { background: "#ffffff", foreground: "#1b1f24", accent: "#2457c5" },
  dark: { background: "#171b22", foreground: "#e6e9ee", accent: "#7aa2ff" },
};

// terminalTheme is xterm's ITheme for a scheme, with the page's colours
// (any CSS colour string) where it has them.
export function terminalTheme(scheme, page = {}) {
  const base = SURFACES[scheme] ?? SURFACES.light;
  const background = page.background || base.background;
  const foreground = page.foreground || base.foreground;
  const accent = page.accent || base.accent;
  return {
    ...PALETTES[scheme === "dark" ? "dark" : "light"],
    background,
    foreground,
    cursor: foreground,
    cursorAccent: background,
    // Translucent, so coloured text stays visible in a selection.
    selectionBackground: scheme === "dark" ? "rgba(122, 162, 255, 0.35)" : "rgba(36, 87, 197, 0.22)",
    selectionInactiveBackground: scheme === "dark" ? "rgba(154, 164, 178, 0.25)" : "rgba(93, 102, 115, 0.18)",
    scrollbarSliderBackground: scheme === "dark" ? "rgba(154, 164, 178, 0.25)" : "rgba(93, 102, 115, 0.25)",
    scrollbarSliderHoverBackground: scheme === "dark" ? "rgba(154, 164, 178, 0.4)" : "rgba(93, 102, 115, 0.4)",
    scrollbarSliderActiveBackground: accent,
  };
}
