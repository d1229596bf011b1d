// Just what this package uses of two untyped libraries.

declare module "@npmcli/arborist" {
  interface ArboristEdge {
    readonly name: string;
    readonly spec: string;
    readonly type: string;
    readonly missing: boolean;
    readonly invalid: boolean;
    readonly peerConflicted?: boolean;
    readonly from: ArboristNode | null;
  }
  interface ArboristNode {
    readonly location: string;
    readonly name: string;
    readonly version: string | undefined;
    readonly resolved: string | null;
    readonly integrity: string | null;
    readonly isRoot: boolean;
    readonly isLink: boolean;
    readonly target: ArboristNode | null;
    readonly inventory: Map<string, ArboristNode>;
    readonly edgesOut: Map<string, ArboristEdge>;
  }
  export default class Arborist {
    constructor(options: { path: string });
    loadVirtual(): Promise<ArboristNode>;
  }
  export type { ArboristEdge, ArboristNode };
}

declare module "tar-fs" {
  import type { Readable } from "node:stream";

  interface TarHeader {
    name: string;
    mode?: number;
    mtime?: Date;
    uid?: number;
    gid?: number;
    uname?: string;
    gname?: string;
    size?: number;
    type?: string;
  }
  interface TarPack extends Readable {
    entry(header: TarHeader, content: Buffer | string, callback?: (error?: Error | null) => void): unknown;
    finalize(): void;
  }
  interface PackOptions {
    entries?: string[];
    dereference?: boolean;
    finalize?: boolean;
    finish?: (pack: TarPack) => void;
    map?: (header: TarHeader) => TarHeader;
  }
  export function pack(cwd: string, options?: PackOptions): TarPack;
  export function extract(cwd: string): import("node:stream").Writable;
  export type { TarHeader, TarPack };
}
