/**
 * Characters that steer a terminal instead of printing: the C0 controls except tab and newline (ESC
 * starts every escape sequence, CR and BS overwrite what is shown), DEL, the C1 controls (U+009B is
 * a one-character CSI, U+009D an OSC) and the BIDI embeddings, overrides and isolates, which reorder
 * the text around them so a line can read differently from what it holds.
 */
export const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
