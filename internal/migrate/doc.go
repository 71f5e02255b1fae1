// Package migrate upgrades version-1 and version-2 session files to version
// 3 by editing raw lines (keys, order and number formatting are kept), and
// rewrites files with the safe rewrite protocol used by migrate and repair.
package migrate
