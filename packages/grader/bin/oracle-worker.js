#!/usr/bin/env node
import "../dist/queue/worker-cli.js";
