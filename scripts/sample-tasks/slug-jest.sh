# slug-jest: turns titles into URL slugs in Node (CommonJS), tested with jest + jest-junit.
# The bug: every character outside [a-z0-9] becomes its own dash, so runs of spaces or punctuation
# give "a---b", and leading or trailing punctuation leaves dashes at the ends.

file package.json < "$root/images/node-jest/package.json"
file package-lock.json < "$root/images/node-jest/package-lock.json"
file .gitignore <<'EOF'
# node_modules may be a symlink to dependencies installed elsewhere, hence no trailing slash.
node_modules
EOF
file README.md <<'EOF'
# slug

Turns titles into URL slugs: `slugify("Hello, World") === "hello-world"`.

Run the tests with `npm test`.
EOF
file src/slugify.js <<'EOF'
"use strict";

/**
 * Lower-cases a title, folds accented letters to their base letter and replaces every other
 * character with a dash.
 */
function slugify(title) {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "-");
}

module.exports = { slugify };
EOF
file test/unit/slugify.test.js <<'EOF'
const { slugify } = require("../../src/slugify");

describe("slugify", () => {
  test("lower-cases words", () => {
    expect(slugify("Hello")).toBe("hello");
  });

  test("joins two words with a dash", () => {
    expect(slugify("hello world")).toBe("hello-world");
  });

  test("folds accents", () => {
    expect(slugify("Crème brûlée")).toBe("creme-brulee");
  });

  test("keeps digits", () => {
    expect(slugify("route 66")).toBe("route-66");
  });
});
EOF
commit 2024-04-02T10:00:00Z "Add slugify"

file src/unique.js <<'EOF'
"use strict";

const { slugify } = require("./slugify");

/** A slug for `title` that is not in `taken` (a Set), suffixed -2, -3, ... when it is. */
function uniqueSlug(title, taken) {
  const base = slugify(title);
  let slug = base;
  for (let n = 2; taken.has(slug); n += 1) slug = `${base}-${n}`;
  taken.add(slug);
  return slug;
}

module.exports = { uniqueSlug };
EOF
file test/unit/unique.test.js <<'EOF'
const { uniqueSlug } = require("../../src/unique");

describe("uniqueSlug", () => {
  test("returns the plain slug when it is free", () => {
    expect(uniqueSlug("Post", new Set())).toBe("post");
  });

  test("numbers repeated titles", () => {
    const taken = new Set();
    expect([uniqueSlug("Post", taken), uniqueSlug("Post", taken), uniqueSlug("Post", taken)]).toEqual([
      "post",
      "post-2",
      "post-3",
    ]);
  });
});
EOF
commit 2024-04-05T15:30:00Z "Add uniqueSlug"

# The fix: collapse every run of other characters into one dash and trim dashes at the ends.
file src/slugify.js <<'EOF'
"use strict";

/**
 * Lower-cases a title, folds accented letters to their base letter and replaces every run of
 * other characters with one dash; no dash at either end.
 */
function slugify(title) {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

module.exports = { slugify };
EOF
gold

hidden test/regression/separators.test.js <<'EOF'
const { slugify } = require("../../src/slugify");
const { uniqueSlug } = require("../../src/unique");

describe("separators", () => {
  test("collapses runs of spaces", () => {
    expect(slugify("hello   world")).toBe("hello-world");
  });

  test("collapses punctuation between words", () => {
    expect(slugify("Hello, World!")).toBe("hello-world");
  });

  test("trims dashes at the ends", () => {
    expect(slugify("  -- Title --  ")).toBe("title");
  });

  test("numbers titles that differ only in punctuation", () => {
    const taken = new Set();
    expect(uniqueSlug("A title", taken)).toBe("a-title");
    expect(uniqueSlug("A title!", taken)).toBe("a-title-2");
  });
});
EOF

cat > "$task/task.json.in" <<'EOF'
{
  "$schema": "../../packages/spec/task.schema.json",
  "id": "slug-jest",
  "description": "Node (CommonJS) slugify; runs of separators must collapse into one dash. Tests: jest + jest-junit from the image's /opt/deps/node_modules.",
  "image": "node-jest",
  "framework": "jest",
  "repo": { "mirror": "repo.bundle", "baseCommit": "@BASE_COMMIT@" },
  "suites": {
    "existing": {
      "command": "ln -sfn /opt/deps/node_modules node_modules && JEST_JUNIT_OUTPUT_FILE=\"$ORACLE_JUNIT\" node_modules/.bin/jest --ci --watchman=false test/unit/ --reporters=default --reporters=jest-junit",
      "files": ["test/**", "jest.config.*", "package.json", "package-lock.json"]
    },
    "hidden": {
      "command": "ln -sfn /opt/deps/node_modules node_modules && JEST_JUNIT_OUTPUT_FILE=\"$ORACLE_JUNIT\" node_modules/.bin/jest --ci --watchman=false test/regression/ --reporters=default --reporters=jest-junit"
    }
  },
  "diff": {
    "allow": ["**"],
    "deny": ["test/**", "jest.config.*", "package.json", "package-lock.json", "node_modules/**", ".npmrc"]
  },
  "timeoutSeconds": 90
}
EOF
