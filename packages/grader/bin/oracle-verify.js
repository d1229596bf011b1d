#!/usr/bin/env node
import { verifyMain } from "../dist/attest/cli.js";

process.exit(await verifyMain(process.argv.slice(2)));
