#!/usr/bin/env node
// A single grade goes to the root's local grader (oracle-grade --serve) when one of this build runs,
// through a client that loads no dependency; else one grade loads the bundle (fast start-up), and
// --batch the unbundled modules it needs anyway.
const argv = process.argv.slice(2);
const { viaServer } = await import("../dist/serve/client.js");
const served = await viaServer(argv);
if (served !== null) process.exit(served);
const cli = argv.includes("--batch")
  ? await import("../dist/cli/cli.js")
  : await import("../dist/oracle-grade.js");
process.exit(await cli.main(argv));
