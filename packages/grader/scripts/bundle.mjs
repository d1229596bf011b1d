#!/usr/bin/env node
// Bundles the oracle-grade CLI (tsc's dist/cli/cli.js) into one ES module, dist/oracle-grade.js, which the
// bin imports: a grade then starts without resolving and reading some 290 small modules (zod, winston,
// saxes, @oracle/spec, @oracle/engine, the grader's own). Left out, and loaded from node_modules as
// before: dockerode (@oracle/engine defers parts of it through the require cache, and resolves it from
// its own package folder), the image builder (imported only on a fingerprint cache miss), the queue
// client, and ../batch/cli.js, which cli/cli.ts imports only for --batch (and which loads its own,
// unbundled copies). Bundling those too made a start slower. The bundle sits in dist/, where version.ts
// is: version.ts and image/fingerprint-cache.ts resolve files and packages relative to import.meta.url;
// the batch's import is written as ./batch/cli.js, its path from there.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname } from "node:path";
import { build } from "esbuild";

const OUT = "dist/oracle-grade.js";

/** Keeps `import("../batch/cli.js")` lazy, written as dist/oracle-grade.js finds dist/batch/cli.js. */
const lazyBatch = {
  name: "lazy-batch",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/batch\/cli\.js$/ }, () => ({ path: "./batch/cli.js", external: true }));
  },
};

/**
 * zod's `z` namespace carries `z.locales`, every language's error messages (about 400 kB of the
 * bundle), which nothing here uses: the bundle keeps English only (the default zod configures itself
 * with), so that a start parses less.
 */
const englishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
    }));
  },
};

const result = await build({
  absWorkingDir: new URL("..", import.meta.url).pathname,
  entryPoints: ["dist/cli/cli.js"],
  outfile: OUT,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Minified (names kept: messages and stack traces name classes and functions): V8 parses the
  // whole file at every start; the source map points back to the sources.
  minify: true,
  keepNames: true,
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
  external: ["@oracle/image-builder", "bullmq", "ioredis", "dockerode"],
  plugins: [lazyBatch, englishOnly],
  // Bundled CommonJS (winston and its dependencies) calls require() for Node built-ins.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});

// A static import of a left-out package would load it at every start, which is what bundling avoids.
const isBuiltin = (path) => path.startsWith("node:") || builtinModules.includes(path);
const atStart = result.metafile.outputs[OUT].imports.filter(
  (entry) => entry.kind !== "dynamic-import" && !isBuiltin(entry.path),
);
if (atStart.length > 0) {
  const names = [...new Set(atStart.map((entry) => entry.path))].join(", ");
  process.stderr.write(`${OUT} loads ${names} at start-up; import them lazily (await import) instead\n`);
  process.exit(1);
}

// The build's id: a local grader (oracle-grade --serve) grades only for a client of the same build.
const bundled = readFileSync(new URL(`../${OUT}`, import.meta.url));
writeFileSync(
  new URL("../dist/build-id", import.meta.url),
  `${createHash("sha256").update(bundled).digest("hex")}\n`,
);
