// electron/session — the session core: reads/appends pi & omp JSONL session files, migrates legacy ones in
// memory, and models the entry tree (SessionManager). Plain Node; imports only shared/.

export { SAVED_POSITION_TYPE, SessionManager } from "./manager";
export { entryText } from "./entry-text";
export type { OpenOptions, CreateOptions, BranchOptions, SessionTreeNode, CatchUpResult, CatchUpProbe, CatchUpTrace } from "./manager";
export { SessionFileError } from "./errors";
export { toPlain } from "./entry-cache";
export type { SessionFileErrorCode } from "./errors";
export { createSessionId, sessionFileName, projectDirName } from "./ids";
export { derivedFileMode, makeTargetDir, NEW_SESSION_FILE_MODE, PRIVATE_FILE_MODE, writeNewFile, writeReplacingFile } from "./write";
export { NewFileStream } from "./new-file-stream";
export { readPathContext } from "./formats/pi/path-reader";
export type { PathContextResult } from "./formats/pi/path-reader";
export { buildOmpContext, sessionWriter } from "./formats/omp/context";
export type { OmpSessionContext, SessionWriter } from "./formats/omp/context";
export { defaultSessionDir, expandHome, piAgentDir, piConfiguredSessionDir, piProjectSessionDir, piSessionsRoot } from "./formats/pi/dirs";
export { ompAgentDir, ompConfigRoot, ompSessionRoots } from "./formats/omp/dirs";
export type { DirEnv, FormatId, FormatProbe, IndexRow, Lineage, RecordPlace, RecordReader, ResumeInput, SessionFormat } from "./formats/format";
export { PROBE_BYTES } from "./formats/format";
export { agentNameOf, contextRuleIds, detectFormat, formatById, FORMATS, lineageOf, probeFile } from "./formats/registry";
export { childHeader, newSessionHeader } from "./formats/pi/header";
