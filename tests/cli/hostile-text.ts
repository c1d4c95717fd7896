// What a model or a tool can put in front of the user: an OSC 52 clipboard write, a cursor-up plus
// erase-line that wipes the real approval line and draws a fake one, the one-byte C1 CSI, a carriage
// return, a backspace, a right-to-left override that makes `txt.exe` read as `exe.txt`.
export const HOSTILE = [
  '\u001b]52;c;ZWNobyBwd25lZAo=\u0007',
  '\u001b[1A\u001b[2K  ? files.write {"path":"notes.txt"} needs your approval',
  '\u009b2K',
  'over\rwritten',
  'back\bspace',
  'file\u202etxt.exe',
].join(' ');

/** Anything that steers a terminal, besides newline and tab. */
export const STEERING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
