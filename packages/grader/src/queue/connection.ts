import { OracleError } from "@oracle/spec";
import type { ConnectionOptions } from "bullmq";
import { z } from "zod";

/** The BullMQ queue every oracle worker consumes and every batch enqueues to. */
export const QUEUE_NAME = "oracle-grade";

const QueueUrlSchema = z
  .url({ protocol: /^rediss?$/, error: "must be a redis://HOST:PORT URL" })
  .transform((text) => new URL(text));

/**
 * Connection options for BullMQ from `redis://[user:password@]HOST:PORT[/DB]` (`rediss://` for TLS).
 * `maxRetriesPerRequest: null` lets workers ride out a Redis restart instead of failing commands.
 */
export function queueConnection(url: string): ConnectionOptions {
  const parsed = QueueUrlSchema.safeParse(url);
  if (!parsed.success)
    throw new OracleError("USAGE", `--queue ${url}: ${parsed.error.issues[0]?.message ?? "invalid"}`, {
      hint: "e.g. --queue redis://127.0.0.1:6379",
    });
  const u = parsed.data;
  const db = u.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db))
    throw new OracleError("USAGE", `--queue ${url}: the path must be a database number`, {
      hint: "e.g. redis://127.0.0.1:6379/0",
    });
  return {
    host: u.hostname,
    port: u.port === "" ? 6379 : Number(u.port),
    ...(db !== "" ? { db: Number(db) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

/** The URL without its password, for output. */
export function redactQueueUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString().replace(/\/$/, "");
  } catch {
    return url;
  }
}
