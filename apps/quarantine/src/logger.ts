import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import winston from "winston";

/** The sweep's own log: JSON lines in `file`, component `sweep`. Progress goes to the terminal, not here. */
export function createSweepLogger(file: string): winston.Logger {
  mkdirSync(dirname(file), { recursive: true });
  return winston.createLogger({
    level: "debug",
    defaultMeta: { component: "sweep" },
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.File({ filename: file })],
  });
}

/** Resolves once everything logged so far is on disk. */
export function closeLogger(logger: winston.Logger): Promise<void> {
  return new Promise((done) => {
    logger.on("finish", () => done());
    logger.end();
  });
}
