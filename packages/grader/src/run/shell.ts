/** Writing values into the driver's and the prep's shell scripts. */

const PLAIN = /^[A-Za-z0-9_./@%+=:,-][A-Za-z0-9_./@%+=:, -]*$/;

/**
 * A shell assignment `name=<path>` for a path given as a binary string (one char per byte): single
 * quotes for plain names, printf octal escapes (and a guard against trailing-newline loss) otherwise.
 */
export function assignPath(name: string, path: string): string {
  if (PLAIN.test(path)) return `${name}='${path}'`;
  const octal = [...Buffer.from(path, "latin1")]
    .map((byte) => `\\${byte.toString(8).padStart(3, "0")}`)
    .join("");
  return `${name}=$(printf '${octal}x'); ${name}=\${${name}%x}`;
}

/** A path from the host (UTF-8) as a binary string for {@link assignPath}. */
export const utf8Path = (path: string): string => Buffer.from(path, "utf8").toString("latin1");

/** A single-quoted shell word. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, "'\\''")}'`;

/** Text (no single quote, no backslash, no `%` but conversions) as a single-quoted printf format: newlines as `\n`. */
export const printfFormat = (text: string): string => `'${text.replace(/\n/g, "\\n")}'`;
