/**
 * pytest's `-k` grammar (pytest 7, `_pytest/mark/expression.py`):
 *   expr: and_expr ('or' and_expr)* ; and_expr: not_expr ('and' not_expr)* ;
 *   not_expr: 'not' not_expr | '(' expr ')' | ident ; ident: (\w|:|+|-|.|[|]|\|/)+
 * An identifier is true when it is, case-insensitively, a substring of one of the item's names
 * (KeywordMatcher: the names of the item and its parents but the session, extra keywords, the
 * function's attributes, its markers). Evaluated in three-valued logic so that a name the oracle
 * cannot see (a marker, a package folder) never makes it claim a selection it cannot prove.
 */
export type KeywordExpression = (names: KeywordNames) => boolean | null;

/** The names an item surely has, and the ones it may have (markers, package folders). */
export interface KeywordNames {
  known: string[];
  maybe: string[];
}

type Token = { kind: "(" | ")" | "and" | "or" | "not" | "ident" | "eof"; value: string };

const IDENT = /^(?:[\p{L}\p{N}_]|[:+\-.[\]\\/])+/u;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let rest = input.trimStart();
  for (; rest.length > 0; rest = rest.trimStart()) {
    if (rest[0] === "(" || rest[0] === ")") {
      tokens.push({ kind: rest[0], value: rest[0] });
      rest = rest.slice(1);
      continue;
    }
    const m = IDENT.exec(rest);
    if (!m) throw new Error(`unexpected character ${JSON.stringify(rest[0])}`);
    const word = m[0];
    const kind = word === "and" || word === "or" || word === "not" ? word : "ident";
    tokens.push({ kind, value: word });
    rest = rest.slice(word.length);
  }
  tokens.push({ kind: "eof", value: "" });
  return tokens;
}

const and3 = (a: boolean | null, b: boolean | null) =>
  a === false || b === false ? false : a === null || b === null ? null : true;
const or3 = (a: boolean | null, b: boolean | null) =>
  a === true || b === true ? true : a === null || b === null ? null : false;
const not3 = (a: boolean | null) => (a === null ? null : !a);

/** Compiles a `-k` expression; throws on the inputs pytest rejects as a usage error. */
export function compileKeyword(input: string): KeywordExpression {
  const tokens = tokenize(input);
  let at = 0;
  const peek = () => tokens[at]!;
  const take = (kind: Token["kind"]) => {
    if (peek().kind !== kind) throw new Error(`expected ${kind}, got ${peek().kind}`);
    return tokens[at++]!;
  };
  const expr = (): KeywordExpression => {
    let left = andExpr();
    while (peek().kind === "or") {
      take("or");
      const l = left;
      const r = andExpr();
      left = (n) => or3(l(n), r(n));
    }
    return left;
  };
  const andExpr = (): KeywordExpression => {
    let left = notExpr();
    while (peek().kind === "and") {
      take("and");
      const l = left;
      const r = notExpr();
      left = (n) => and3(l(n), r(n));
    }
    return left;
  };
  const notExpr = (): KeywordExpression => {
    if (peek().kind === "not") {
      take("not");
      const inner = notExpr();
      return (n) => not3(inner(n));
    }
    if (peek().kind === "(") {
      take("(");
      const inner = expr();
      take(")");
      return inner;
    }
    const sub = take("ident").value.toLowerCase();
    return (n) => {
      if (n.known.some((name) => name.toLowerCase().includes(sub))) return true;
      return n.maybe.some((name) => name.toLowerCase().includes(sub)) ? null : false;
    };
  };
  if (peek().kind === "eof") return () => true;
  const compiled = expr();
  take("eof");
  return compiled;
}
