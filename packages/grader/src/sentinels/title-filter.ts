/**
 * A JS runner's name filter as the runner itself applies it, so that sentinel titles can be tested
 * against it with the same RegExp:
 * - mocha (`lib/mocha.js` `grep`): `--fgrep s` is the escaped string, `--grep /re/flags` or `re` a
 *   RegExp, tested against the test's full title (its describes' titles and its own, joined by
 *   spaces); `--invert` keeps the tests it does not match;
 * - jest: `-t` is `new RegExp(pattern, "i")` over the full name (describes and title, by spaces);
 * - vitest: `-t` is `new RegExp(pattern)` over the full name (the same join).
 * Returns why it cannot when the pattern is not a valid RegExp (the runner then fails anyway).
 */
export function titleFilter(
  runner: "mocha" | "jest" | "vitest",
  options: { grep?: string | undefined; fgrep?: string | undefined; invert?: boolean },
): ((fullTitle: string) => boolean) | string {
  let re: RegExp;
  try {
    if (runner === "mocha") {
      if (options.fgrep !== undefined) re = new RegExp(escapeRegExp(options.fgrep));
      else {
        const m = /^\/(.*)\/([gimy]{0,4})$|.*/s.exec(options.grep ?? "")!;
        re = new RegExp(m[1] ?? m[0], m[2]);
      }
    } else re = new RegExp(options.grep ?? "", runner === "jest" ? "i" : "");
  } catch (error) {
    return `the name pattern ${JSON.stringify(options.grep)} is not a valid regular expression (${(error as Error).message})`;
  }
  const invert = runner === "mocha" && options.invert === true;
  return (title) => {
    re.lastIndex = 0;
    return re.test(title) !== invert;
  };
}

const escapeRegExp = (text: string) => text.replace(/[|\\{}()[\]^$+*?.]/g, "\\$&");
