// Turns an offset into text into the line and column a person would look for in an editor.

export interface TextPosition {
  /** 1-based line number. */
  readonly line: number;
  /** 1-based column, counted in UTF-16 code units from the start of the line. */
  readonly column: number;
}

export function positionAt(text: string, offset: number): TextPosition {
  const end = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: end - lineStart + 1 };
}
