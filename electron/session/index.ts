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
export { readPathContext } from "./path-reader";
export type { PathContextResult } from "./path-reader";
export { buildOmpContext, sessionWriter } from "./omp-context";
export type { OmpSessionContext, SessionWriter } from "./omp-context";
export {
	defaultSessionDir,
	expandHome,
	ompAgentDir,
	ompConfigRoot,
	ompSessionRoots,
	piAgentDir,
	piConfiguredSessionDir,
	piProjectSessionDir,
	piSessionsRoot,
} from "./agent-dirs";
export type { DirEnv } from "./agent-dirs";
