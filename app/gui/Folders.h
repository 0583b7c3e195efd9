#pragma once

#include <QString>

// Where each kind of file dialog opens: the folder its kind last used ("logs", "models",
// "scenarios", "prices", "exports"), kept in the settings, so that the second log of a folder
// is one click away (a seventh review retyped the path for every log). One place for every
// dialog of the window.
namespace Folders {

// That folder with `name` in it (a save dialog's suggestion), or the folder alone; where the
// kind has none yet, `first` where given and a folder (a calibration beside its benchmark),
// else the Hugging Face cache (models), Documents (exports) or home.
QString suggest(const QString& kind, const QString& name = {}, const QString& first = {});
// The dialog's answer: its folder is the kind's from now on. Returns `path`.
QString remember(const QString& kind, const QString& path);

} // namespace Folders
