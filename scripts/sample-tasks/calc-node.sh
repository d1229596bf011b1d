# calc-node: an arithmetic expression evaluator in Node (ESM), tested with mocha.
# The bug: the recursive-descent parser recurses on the right operand, so - and / are
# right-associative: "10 - 4 - 3" evaluates as 10 - (4 - 3) = 9 instead of 3.

file package.json < "$root/images/node-mocha/package.json"
file package-lock.json < "$root/images/node-mocha/package-lock.json"
file .gitignore <<'EOF'
# node_modules may be a symlink to dependencies installed elsewhere, hence no trailing slash.
node_modules
EOF
file README.md <<'EOF'
# calc

A small arithmetic expression evaluator: numbers, `+ - * /`.

```js
import { tokenize } from "calc";
tokenize("1 + 2"); // [{ type: "number", value: 1, pos: 0 }, ...]
```

Run the tests with `npm test`.
EOF
file src/tokenize.js <<'EOF'
const DIGIT = /[0-9.]/;
const NUMBER = /^(\d+\.?\d*|\.\d+)$/;

/**
 * Splits an arithmetic expression into tokens: numbers, the operators + - * /, and parentheses.
 * Each token records its position in the source, for error messages.
 */
export function tokenize(source) {
  const tokens = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === " " || ch === "\t") {
      i += 1;
    } else if (DIGIT.test(ch)) {
      let j = i;
      while (j < source.length && DIGIT.test(source[j])) j += 1;
      const text = source.slice(i, j);
      if (!NUMBER.test(text)) throw new SyntaxError(`bad number '${text}' at ${i}`);
      tokens.push({ type: "number", value: Number(text), pos: i });
      i = j;
    } else if ("+-*/".includes(ch)) {
      tokens.push({ type: "op", value: ch, pos: i });
      i += 1;
    } else if (ch === "(" || ch === ")") {
      tokens.push({ type: "paren", value: ch, pos: i });
      i += 1;
    } else {
      throw new SyntaxError(`unexpected character '${ch}' at ${i}`);
    }
  }
  return tokens;
}
EOF
file src/index.js <<'EOF'
export { tokenize } from "./tokenize.js";
EOF
file test/tokenize.test.js <<'EOF'
import assert from "node:assert/strict";
import { tokenize } from "../src/tokenize.js";

describe("tokenize", () => {
  it("splits numbers and operators", () => {
    assert.deepEqual(
      tokenize("12 + 3.5").map((t) => t.value),
      [12, "+", 3.5],
    );
  });

  it("records positions", () => {
    assert.deepEqual(
      tokenize("1*22").map((t) => t.pos),
      [0, 1, 2],
    );
  });

  it("accepts numbers that start with a dot", () => {
    assert.equal(tokenize(".25")[0].value, 0.25);
  });

  it("rejects malformed numbers", () => {
    assert.throws(() => tokenize("1.2.3"), SyntaxError);
  });

  it("rejects unknown characters", () => {
    assert.throws(() => tokenize("2 ^ 3"), /unexpected character '\^' at 2/);
  });
});
EOF
commit 2024-03-04T09:12:00Z "Add tokenizer"

file src/parse.js <<'EOF'
import { tokenize } from "./tokenize.js";

/**
 * Parses an expression into a tree of { type: "number", value } and
 * { type: "binary", op, left, right } nodes.
 *
 *   expression := term (("+" | "-") expression)?
 *   term       := number (("*" | "/") term)?
 */
export function parse(source) {
  const tokens = tokenize(source);
  let index = 0;

  const peek = () => tokens[index];
  const isOp = (token, ops) => token !== undefined && token.type === "op" && ops.includes(token.value);

  function expression() {
    const left = term();
    const token = peek();
    if (isOp(token, "+-")) {
      index += 1;
      return { type: "binary", op: token.value, left, right: expression() };
    }
    return left;
  }

  function term() {
    const left = number();
    const token = peek();
    if (isOp(token, "*/")) {
      index += 1;
      return { type: "binary", op: token.value, left, right: term() };
    }
    return left;
  }

  function number() {
    const token = tokens[index];
    if (token === undefined) throw new SyntaxError("unexpected end of expression");
    if (token.type !== "number") throw new SyntaxError(`unexpected '${token.value}' at ${token.pos}`);
    index += 1;
    return { type: "number", value: token.value };
  }

  const tree = expression();
  if (index < tokens.length) {
    const extra = tokens[index];
    throw new SyntaxError(`unexpected '${extra.value}' at ${extra.pos}`);
  }
  return tree;
}
EOF
file src/evaluate.js <<'EOF'
/** Evaluates a tree made by parse(). Division by zero is an error, not Infinity. */
export function evaluate(node) {
  if (node.type === "number") return node.value;
  if (node.type === "negate") return -evaluate(node.operand);
  const left = evaluate(node.left);
  const right = evaluate(node.right);
  switch (node.op) {
    case "+":
      return left + right;
    case "-":
      return left - right;
    case "*":
      return left * right;
    case "/":
      if (right === 0) throw new RangeError("division by zero");
      return left / right;
    default:
      throw new Error(`unknown operator '${node.op}'`);
  }
}
EOF
file src/index.js <<'EOF'
import { evaluate } from "./evaluate.js";
import { parse } from "./parse.js";

export { evaluate } from "./evaluate.js";
export { parse } from "./parse.js";
export { tokenize } from "./tokenize.js";

/** Parses and evaluates an arithmetic expression: calculate("2 + 3 * 4") === 14. */
export function calculate(source) {
  return evaluate(parse(source));
}
EOF
file test/calculate.test.js <<'EOF'
import assert from "node:assert/strict";
import { calculate } from "../src/index.js";

describe("calculate", () => {
  it("adds", () => {
    assert.equal(calculate("1 + 2 + 3"), 6);
  });

  it("multiplies before adding", () => {
    assert.equal(calculate("2 + 3 * 4"), 14);
    assert.equal(calculate("2 * 3 + 4"), 10);
  });

  it("subtracts and divides", () => {
    assert.equal(calculate("10 - 4"), 6);
    assert.equal(calculate("7 / 2"), 3.5);
  });

  it("refuses to divide by zero", () => {
    assert.throws(() => calculate("1 / 0"), RangeError);
  });

  it("reports syntax errors with a position", () => {
    assert.throws(() => calculate("1 +"), /unexpected end of expression/);
    assert.throws(() => calculate("1 2"), /unexpected '2' at 2/);
  });
});
EOF
commit 2024-03-06T16:40:00Z "Add parser and evaluator for + - * /"

file README.md <<'EOF'
# calc

A small arithmetic expression evaluator: numbers, `+ - * /`, parentheses and unary minus.

```js
import { calculate } from "calc";
calculate("2 * (3 + 4)"); // 14
```

```sh
$ npx calc "-(1 + 2) * 4"
-12
```

Run the tests with `npm test`.
EOF
file src/parse.js <<'EOF'
import { tokenize } from "./tokenize.js";

/**
 * Parses an expression into a tree of { type: "number", value },
 * { type: "negate", operand } and { type: "binary", op, left, right } nodes.
 *
 *   expression := term (("+" | "-") expression)?
 *   term       := factor (("*" | "/") term)?
 *   factor     := number | "-" factor | "(" expression ")"
 */
export function parse(source) {
  const tokens = tokenize(source);
  let index = 0;

  const peek = () => tokens[index];
  const isOp = (token, ops) => token !== undefined && token.type === "op" && ops.includes(token.value);

  function expression() {
    const left = term();
    const token = peek();
    if (isOp(token, "+-")) {
      index += 1;
      return { type: "binary", op: token.value, left, right: expression() };
    }
    return left;
  }

  function term() {
    const left = factor();
    const token = peek();
    if (isOp(token, "*/")) {
      index += 1;
      return { type: "binary", op: token.value, left, right: term() };
    }
    return left;
  }

  function factor() {
    const token = tokens[index];
    if (token === undefined) throw new SyntaxError("unexpected end of expression");
    index += 1;
    if (token.type === "number") return { type: "number", value: token.value };
    if (isOp(token, "-")) return { type: "negate", operand: factor() };
    if (token.type === "paren" && token.value === "(") {
      const inner = expression();
      const close = tokens[index];
      if (close === undefined || close.value !== ")") throw new SyntaxError(`missing ')' for '(' at ${token.pos}`);
      index += 1;
      return inner;
    }
    throw new SyntaxError(`unexpected '${token.value}' at ${token.pos}`);
  }

  const tree = expression();
  if (index < tokens.length) {
    const extra = tokens[index];
    throw new SyntaxError(`unexpected '${extra.value}' at ${extra.pos}`);
  }
  return tree;
}
EOF
file bin/calc.js 755 <<'EOF'
#!/usr/bin/env node
import { calculate } from "../src/index.js";

const source = process.argv.slice(2).join(" ");
if (source.trim() === "") {
  console.error("usage: calc <expression>");
  process.exit(2);
}
try {
  console.log(String(calculate(source)));
} catch (error) {
  console.error(`calc: ${error.message}`);
  process.exit(1);
}
EOF
file test/parentheses.test.js <<'EOF'
import assert from "node:assert/strict";
import { calculate, parse } from "../src/index.js";

describe("parentheses and unary minus", () => {
  it("groups with parentheses", () => {
    assert.equal(calculate("(1 + 2) * 3"), 9);
    assert.equal(calculate("2 * (3 + (4 * 5))"), 46);
  });

  it("negates", () => {
    assert.equal(calculate("-3 + 5"), 2);
    assert.equal(calculate("-(1 + 2) * 4"), -12);
    assert.equal(calculate("--2"), 2);
  });

  it("builds a negate node", () => {
    assert.deepEqual(parse("-1"), { type: "negate", operand: { type: "number", value: 1 } });
  });

  it("reports an unclosed parenthesis", () => {
    assert.throws(() => calculate("(1 + 2"), /missing '\)' for '\(' at 0/);
  });

  it("reports a stray closing parenthesis", () => {
    assert.throws(() => calculate("1 + 2)"), /unexpected '\)' at 5/);
  });
});
EOF
commit 2024-03-11T11:05:00Z "Support parentheses, unary minus and a calc CLI"

# The fix: parse a chain of same-precedence operators with a loop, building the tree leftwards.
file src/parse.js <<'EOF'
import { tokenize } from "./tokenize.js";

/**
 * Parses an expression into a tree of { type: "number", value },
 * { type: "negate", operand } and { type: "binary", op, left, right } nodes.
 * Operators of equal precedence associate to the left: 10 - 4 - 3 is (10 - 4) - 3.
 *
 *   expression := term (("+" | "-") term)*
 *   term       := factor (("*" | "/") factor)*
 *   factor     := number | "-" factor | "(" expression ")"
 */
export function parse(source) {
  const tokens = tokenize(source);
  let index = 0;

  const peek = () => tokens[index];
  const isOp = (token, ops) => token !== undefined && token.type === "op" && ops.includes(token.value);

  function expression() {
    let left = term();
    while (isOp(peek(), "+-")) {
      const token = tokens[index];
      index += 1;
      left = { type: "binary", op: token.value, left, right: term() };
    }
    return left;
  }

  function term() {
    let left = factor();
    while (isOp(peek(), "*/")) {
      const token = tokens[index];
      index += 1;
      left = { type: "binary", op: token.value, left, right: factor() };
    }
    return left;
  }

  function factor() {
    const token = tokens[index];
    if (token === undefined) throw new SyntaxError("unexpected end of expression");
    index += 1;
    if (token.type === "number") return { type: "number", value: token.value };
    if (isOp(token, "-")) return { type: "negate", operand: factor() };
    if (token.type === "paren" && token.value === "(") {
      const inner = expression();
      const close = tokens[index];
      if (close === undefined || close.value !== ")") throw new SyntaxError(`missing ')' for '(' at ${token.pos}`);
      index += 1;
      return inner;
    }
    throw new SyntaxError(`unexpected '${token.value}' at ${token.pos}`);
  }

  const tree = expression();
  if (index < tokens.length) {
    const extra = tokens[index];
    throw new SyntaxError(`unexpected '${extra.value}' at ${extra.pos}`);
  }
  return tree;
}
EOF
gold

hidden test/regression/associativity.test.js <<'EOF'
import assert from "node:assert/strict";
import { calculate, parse } from "../../src/index.js";

const num = (value) => ({ type: "number", value });

describe("operators of equal precedence associate to the left", () => {
  it("subtracts left to right", () => {
    assert.equal(calculate("10 - 4 - 3"), 3);
    assert.equal(calculate("1 - 2 - 3 - 4"), -8);
  });

  it("divides left to right", () => {
    assert.equal(calculate("100 / 10 / 5"), 2);
  });

  it("mixes + and - left to right", () => {
    assert.equal(calculate("2 - 3 + 4"), 3);
  });

  it("mixes * and / left to right", () => {
    assert.equal(calculate("8 / 2 * 4"), 16);
  });

  it("builds a left-leaning tree", () => {
    assert.deepEqual(parse("1 - 2 - 3"), {
      type: "binary",
      op: "-",
      left: { type: "binary", op: "-", left: num(1), right: num(2) },
      right: num(3),
    });
  });

  it("still honours explicit grouping", () => {
    assert.equal(calculate("10 - (4 - 3)"), 9);
  });
});
EOF

cat > "$task/task.json.in" <<'EOF'
{
  "$schema": "../../packages/spec/task.schema.json",
  "id": "calc-node",
  "description": "Node (ESM) expression evaluator; - and / must associate to the left. Tests: mocha + mocha-junit-reporter from the image's /opt/deps/node_modules.",
  "image": "node-mocha",
  "framework": "mocha",
  "repo": { "mirror": "repo.bundle", "baseCommit": "@BASE_COMMIT@" },
  "suites": {
    "existing": {
      "command": "ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/mocha --reporter mocha-junit-reporter --reporter-option mochaFile=\"$ORACLE_JUNIT\" 'test/*.test.js'",
      "files": ["test/**", ".mocharc*", "package.json", "package-lock.json"]
    },
    "hidden": {
      "command": "ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/mocha --reporter mocha-junit-reporter --reporter-option mochaFile=\"$ORACLE_JUNIT\" 'test/regression/*.test.js'"
    }
  },
  "diff": {
    "allow": ["**"],
    "deny": ["test/**", ".mocharc*", "package.json", "package-lock.json", "node_modules/**", ".npmrc"]
  },
  "timeoutSeconds": 90
}
EOF
