package journal

// Abandon lets go of a journal as a killed process would: its lock and
// files are released, its folder stays on disk.
var Abandon = die
