// BoundedLines is a queue of log lines that never holds more than max: the
// oldest go first, and are counted. A followed log in a background tab gets
// no animation frames, so lines wait here until the tab is shown again; the
// bound keeps that wait from growing without limit.
export class BoundedLines {
  constructor(max) {
    this.max = max;
    this.lines = [];
    this.dropped = 0;
  }

  get length() {
    return this.lines.length;
  }

  push(lines) {
    if (lines.length >= this.max) {
      this.dropped += this.lines.length + lines.length - this.max;
      this.lines = lines.slice(-this.max);
      return;
    }
    this.lines.push(...lines);
    const over = this.lines.length - this.max;
    if (over > 0) {
      this.lines.splice(0, over);
      this.dropped += over;
    }
  }

  // take empties the queue and returns what it held, oldest first.
  take() {
    const lines = this.lines;
    this.lines = [];
    return lines;
  }
}
