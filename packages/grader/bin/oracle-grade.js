#!/usr/bin/env node
// One grade loads the bundle (fast start-up); --batch loads the unbundled modules it needs anyway.
if (process.argv.includes("--batch")) await import("../dist/cli.js");
else await import("../dist/oracle-grade.js");
