#pragma once

#include <QDialog>

#include <functional>

class AppSession;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

// The start-up log pane: a log's text (a file's, or pasted) and what attnplan reads in it, the
// CLI's `log` report (EngineLog.h engineLogText): the engine and release, the model and GPU,
// the settings, the logged figure against attnplan's with the difference, each input with where
// it came from, the what-ifs on the same budget and every line not placed. A log whose model is
// not at hand asks for one from the library. Apply to scenario opens it as the scenario; edits
// to the text clear the reading until it is checked again.
class LogPane : public QDialog
{
    Q_OBJECT

public:
    explicit LogPane(AppSession* session, QWidget* parent = nullptr);

    // A log's text, read and checked at once; `source` names it (the file, "pasted log").
    void showLog(const QString& text, const QString& source);
    // Whether the last check read the text (Apply is on).
    bool checked() const;
    // The model the log ran from a config file of the user's (what the picker's "a config
    // file…" opens), chosen and the log checked with it.
    void setModelFile(const QString& path);
    // Asked before a log replaces the scenario (unsaved edits: save, discard or cancel).
    void setConfirm(std::function<bool()> confirm) { m_confirm = std::move(confirm); }

signals:
    // The log became the scenario: what was read, for the status bar.
    void applied(const QString& summary);

private:
    void check();
    void apply();
    void textEdited();

    // The picker's rows: the log's own model, the open one, a config file, then the library.
    static constexpr int kOpenModel = 1;
    static constexpr int kConfigFile = 2;
    static constexpr int kFirstBundled = 3;

    AppSession* m_session;
    QPlainTextEdit* m_text;
    QComboBox* m_model;
    QComboBox* m_gpu; // the GPU of a log that names none
    QPlainTextEdit* m_reading;
    QLabel* m_state;
    QPushButton* m_check;
    QPushButton* m_apply;
    QString m_source;
    bool m_showing = false;
    bool m_fileRow = false; // a config file chosen: its row follows kConfigFile
    std::function<bool()> m_confirm;
};
