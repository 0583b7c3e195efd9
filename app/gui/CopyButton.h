#pragma once

class QLineEdit;
class QPushButton;

// A Copy button for a command field: copies its text to the clipboard and reads "Copied" for a
// moment (the Memory tab's command, the Plans tab's chosen command).
QPushButton* copyButton(QLineEdit* field);
