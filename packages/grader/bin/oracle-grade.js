#!/usr/bin/env node
// One grade loads the bundle (fast start-up); --batch loads the unbundled modules it needs anyway.
const cli = process.argv.includes("--batch")
  ? await import("../dist/cli/cli.js")
  : await import("../dist/oracle-grade.js");
process.exit(await cli.main(process.argv.slice(2)));
