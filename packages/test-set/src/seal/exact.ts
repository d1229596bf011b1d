/**
 * Exact numbers for comparing numeric values across kinds the way Python does (an int and a float,
 * a Decimal and a float: by their exact values, never by rounding one to the other). A finite
 * number is a fraction of two big integers in lowest terms with a positive denominator.
 */
export type Exact = { num: bigint; den: bigint } | "nan" | "inf" | "-inf";

const gcd = (a: bigint, b: bigint): bigint => {
  let [x, y] = [a < 0n ? -a : a, b < 0n ? -b : b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
};

export function fraction(num: bigint, den: bigint): Exact {
  if (den === 0n) throw new Error("zero denominator");
  const sign = den < 0n ? -1n : 1n;
  const g = gcd(num, den) || 1n;
  return { num: (sign * num) / g, den: (sign * den) / g };
}

export const integer = (n: bigint): Exact => ({ num: n, den: 1n });

/** Python's `hex(int)` form, `-0x1f` or `0x1f`. */
export function fromHexInt(text: string): bigint {
  const negative = text.startsWith("-");
  const digits = negative ? text.slice(1) : text;
  if (!/^0x[0-9a-f]+$/i.test(digits)) throw new Error(`not a hex integer: ${text}`);
  const value = BigInt(digits);
  return negative ? -value : value;
}

/** Python's `float.hex()` (`0x1.8p+0`, `-0x0.0p+0`, `inf`, `-inf`, `nan`), exactly. `-0.0` reads as 0. */
export function fromFloatHex(text: string): Exact {
  if (text === "nan") return "nan";
  if (text === "inf") return "inf";
  if (text === "-inf") return "-inf";
  const m = /^(-?)0x([0-9a-f]+)(?:\.([0-9a-f]*))?p([+-]\d+)$/i.exec(text);
  if (!m) throw new Error(`not a float.hex() value: ${text}`);
  const [, sign, whole, frac = "", exp] = m;
  let num = BigInt(`0x${whole}${frac || "0"}`);
  if (sign === "-") num = -num;
  let den = 16n ** BigInt(frac.length || 1);
  if (!frac) den = 16n;
  const e = BigInt(exp!);
  return e >= 0n ? fraction(num * 2n ** e, den) : fraction(num, den * 2n ** -e);
}

/** A JavaScript number's exact value (every double is a dyadic fraction). */
export function fromDouble(value: number): Exact {
  if (Number.isNaN(value)) return "nan";
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  if (Number.isInteger(value)) return integer(BigInt(value));
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const exponent = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  if (exponent !== 0) mantissa |= 1n << 52n;
  const power = BigInt((exponent === 0 ? 1 : exponent) - 1075);
  const num = negative ? -mantissa : mantissa;
  return power >= 0n ? fraction(num * 2n ** power, 1n) : fraction(num, 2n ** -power);
}

/** Python's `str(Decimal)` (`1.50`, `1E+2`, `-0`, `NaN`, `sNaN`, `Infinity`), exactly. */
export function fromDecimal(text: string): Exact {
  if (/^-?s?nan\d*$/i.test(text)) return "nan";
  if (/^infinity$/i.test(text)) return "inf";
  if (/^-infinity$/i.test(text)) return "-inf";
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!m || (m[2] === "" && !m[3])) throw new Error(`not a Decimal: ${text}`);
  const [, sign, whole = "", frac = "", exp = "0"] = m;
  let num = BigInt(`${whole}${frac}` || "0");
  if (sign === "-") num = -num;
  const power = BigInt(exp) - BigInt(frac.length);
  return power >= 0n ? fraction(num * 10n ** power, 1n) : fraction(num, 10n ** -power);
}

/** Python's equality of two numbers: exact; NaN equals nothing. */
export function exactEqual(a: Exact, b: Exact): boolean {
  if (a === "nan" || b === "nan") return false;
  if (typeof a === "string" || typeof b === "string") return a === b;
  return a.num === b.num && a.den === b.den;
}

/** The nearest double (for tolerances, computed as Python computes them: in floats). */
export function toDouble(a: Exact): number {
  if (a === "nan") return Number.NaN;
  if (a === "inf") return Infinity;
  if (a === "-inf") return -Infinity;
  if (a.den === 1n) return Number(a.num);
  // Scale so that the quotient keeps 64 significant bits, then divide in floats.
  const shift = BigInt(
    Math.max(0, 64 - (a.num < 0n ? -a.num : a.num).toString(2).length + a.den.toString(2).length),
  );
  return Number((a.num << shift) / a.den) / 2 ** Number(shift);
}

/** A key for hashing: equal numbers have equal keys (Python's `hash(1) == hash(1.0) == hash(True)`). */
export function exactKey(a: Exact): string {
  return typeof a === "string" ? a : `${a.num}/${a.den}`;
}

/**
 * exactKey in hexadecimal: the same equalities, in time linear in the number's size (a decimal
 * string of a 100,000-digit number cost 16 ms; a set of them as keys, minutes: attack review s29).
 */
export function exactHexKey(a: Exact): string {
  return typeof a === "string" ? a : `${a.num.toString(16)}/${a.den.toString(16)}`;
}
