// A SQLite VFS that reads a database file ahead in large chunks where it is
// read page after page, as a scan of a task table written in one go is.
//
// SQLite reads one page (4 KiB) per pread. Importing 10^7 task rows is
// 450 000 of them, and on the project's VM a system call costs more than
// the copy it makes: a quarter of a reader's time was the kernel's. Where
// reads follow each other in the file, this VFS reads up to 1 MiB at once
// and serves the next pages from that copy; a read elsewhere (tables whose
// pages interleave, b-tree interior pages) goes to the file as before, so
// nothing is read that would not be.
//
// What a connection reads never differs from what the default VFS gives:
// the copy is dropped whenever the connection's lock on the file changes,
// so it is only used inside one read transaction, while SQLite's shared
// lock keeps writers from changing the file; and a database in WAL mode
// (where a checkpoint may write the file under a reader) is never read
// ahead. Everything else is the default VFS's.
#pragma once

namespace cc::hcclvm {

// The VFS's name for sqlite3_open_v2, registered (once per process, not as
// the default) on the first call. Its only state is per open file.
const char* read_ahead_vfs();

}  // namespace cc::hcclvm
