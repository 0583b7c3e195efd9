#include "LogPane.h"
#include "Folders.h"

#include "AppSession.h"
#include "ModelController.h"
#include "read/BundledModels.h"
#include "serve/GpuCatalog.h"
#include "spec/ModelSpec.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGuiApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

LogPane::LogPane(AppSession* session, QWidget* parent)
    : QDialog(parent), m_session(session), m_text(new QPlainTextEdit), m_model(new QComboBox),
      m_gpu(new QComboBox), m_reading(new QPlainTextEdit), m_state(new QLabel),
      m_check(new QPushButton(tr("&Check"))), m_apply(new QPushButton(tr("&Apply to scenario")))
{
    setObjectName(QStringLiteral("logPane"));
    setWindowTitle(tr("Start-up log"));
    m_text->setObjectName(QStringLiteral("logText"));
    m_model->setObjectName(QStringLiteral("logModel"));
    m_reading->setObjectName(QStringLiteral("logReading"));
    m_state->setObjectName(QStringLiteral("logState"));
    m_apply->setObjectName(QStringLiteral("logApply"));
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_text->setFont(fixed);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setPlaceholderText(
        tr("Paste an engine's start-up log here (vLLM, SGLang, TensorRT-LLM, llama.cpp), or open "
           "one with File > Open start-up log"));
    m_reading->setFont(fixed);
    m_reading->setReadOnly(true);
    m_reading->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_state->setWordWrap(true);
    // The model the log names; the model open in the window or a config file of the user's (a
    // fresh review's SGLang log of a Qwen3.5-27B-class model read +14.9% without it, +0.84% with
    // the config, and the pane offered only the library); or one of the library's.
    m_model->addItem(tr("the model the log names"), QString());
    m_model->addItem(tr("the open model"), QString());
    m_model->addItem(tr("a config file…"), QString());
    m_model->insertSeparator(kFirstBundled);
    for (const QString& n : AppSession::bundledModelNames())
        m_model->addItem(n, QStringLiteral("bundled:") + n);
    m_model->setToolTip(tr("The model the log ran; the log's own name where attnplan has it"));
    // The GPU, for a log that names none: else the check sizes it on an H100 SXM stand-in (a
    // twenty-second review's RTX 3090 log read +478% and had no way to say the GPU).
    m_gpu->setObjectName(QStringLiteral("logGpu"));
    m_gpu->addItem(tr("the GPU the log names"), QString());
    for (const attnplan::GpuSpec& g : session->gpuCatalog().gpus)
        m_gpu->addItem(QString::fromStdString(g.name), QString::fromStdString(g.name));
    m_gpu->setToolTip(tr("The GPU the log ran on, used where the log names none"));

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_text);
    split->addWidget(m_reading);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    auto* form = new QFormLayout;
    form->addRow(tr("Model"), m_model);
    form->addRow(tr("GPU"), m_gpu);
    auto* buttons = new QDialogButtonBox;
    buttons->addButton(m_check, QDialogButtonBox::ActionRole);
    buttons->addButton(m_apply, QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split, 1);
    layout->addLayout(form);
    layout->addWidget(m_state);
    layout->addWidget(buttons);
    m_apply->setEnabled(false);
    connect(m_check, &QPushButton::clicked, this, &LogPane::check);
    connect(m_apply, &QPushButton::clicked, this, &LogPane::apply);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_text, &QPlainTextEdit::textChanged, this, &LogPane::textEdited);
    connect(m_model, &QComboBox::currentIndexChanged, this, [this](int at) {
        if (m_showing)
            return;
        if (at == kConfigFile) {
            const QString path = Folders::remember(
                "models", QFileDialog::getOpenFileName(
                              this, tr("The model's config.json"), Folders::suggest("models"),
                              tr("Model configs (*.json);;All files (*)")));
            const QSignalBlocker quiet(m_model);
            if (path.isEmpty()) {
                m_model->setCurrentIndex(0);
            } else {
                setModelFile(path);
                return;
            }
        }
        check();
    });
    connect(m_gpu, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_showing)
            check();
    });
    // Room for a log's long lines, within the screen.
    const QRect room = QGuiApplication::primaryScreen()
                           ? QGuiApplication::primaryScreen()->availableGeometry()
                           : QRect(0, 0, 1024, 700);
    resize(std::min(1000, room.width() - 40), std::min(720, room.height() - 40));
}

void LogPane::setModelFile(const QString& path)
{
    // Its own row after the file entry, chosen, and kept for the next log.
    const int at = kConfigFile + 1;
    if (!m_fileRow) {
        m_model->insertItem(at, QString());
        m_fileRow = true;
    }
    m_model->setItemText(at, tr("config: %1").arg(QFileInfo(path).fileName()));
    m_model->setItemData(at, path);
    m_model->setItemData(at, path, Qt::ToolTipRole);
    m_showing = true;
    m_model->setCurrentIndex(at);
    m_showing = false;
    check();
}

void LogPane::showLog(const QString& text, const QString& source)
{
    m_showing = true;
    m_source = source;
    // The open model, by its name, for a log that names another or none.
    const QString open = m_session->models()->currentSource();
    const auto spec = m_session->model();
    m_model->setItemText(kOpenModel,
                         spec ? tr("the open model: %1").arg(QString::fromStdString(spec->name))
                              : tr("the open model (none)"));
    m_model->setItemData(kOpenModel, open);
    m_model->setCurrentIndex(0);
    m_gpu->setCurrentIndex(0); // another log: its own GPU, or a new choice
    m_text->setPlainText(text);
    m_showing = false;
    if (text.trimmed().isEmpty()) {
        m_apply->setEnabled(false); // nothing read: the last log's reading goes with it
        m_reading->clear();
        m_state->setText(tr("Paste a log, then Check."));
        return;
    }
    check();
}

bool LogPane::checked() const
{
    return m_apply->isEnabled();
}

void LogPane::textEdited()
{
    if (m_showing)
        return;
    // Derived state follows its source: an edited log is read again before it is applied.
    if (m_source.isEmpty() || !m_source.startsWith(tr("pasted")))
        m_source = tr("pasted log");
    m_reading->clear();
    m_apply->setEnabled(false);
    m_state->setText(tr("Edited: Check to read it again."));
}

void LogPane::check()
{
    QString report, error, caution;
    bool needsModel = false;
    const QString model = m_model->currentData().toString();
    const bool ok =
        m_session->checkEngineLogText(m_text->toPlainText(), m_source, model, &report, &error,
                                      &needsModel, &caution, m_gpu->currentData().toString());
    m_apply->setEnabled(ok);
    if (ok) {
        m_reading->setPlainText(report);
        // A model the log cannot have run is said beside Apply, which stays the user's (a tenth
        // review applied a 31B to a 26B log at +300% with nothing said).
        m_state->setText(
            caution.isEmpty()
                ? tr("Apply to scenario opens it: its model, GPU, layout, release and "
                     "settings, with the KV budget the engine logged.")
                : tr("<b>Check the model:</b> %1. Apply would size that model as this log's "
                     "deployment; choose the model it ran (a config file of its own is exact).")
                      .arg(caution.toHtmlEscaped()));
        return;
    }
    // The CLI's words name its flag; here the model is chosen below, from the list (a
    // twenty-second review read "(a config.json, a folder or a bundled name)" and typed a path
    // into a box that takes none).
    error.replace(QStringLiteral("give --model (a config.json, a folder or a bundled name)"),
                  tr("choose the model below (the library's, or a config file…)"));
    error.replace(QStringLiteral("give --model"), tr("choose the model below"));
    m_reading->setPlainText(report.isEmpty() ? error : report + QStringLiteral("\n") + error);
    if (!needsModel) {
        m_state->setText(tr("Nothing to apply: %1").arg(error));
        return;
    }
    // The model is what is missing: the library's nearest to the name the log prints, chosen
    // for the user to confirm or change (never the model open in the window).
    bool byArchitecture = false;
    const QString nearest = AppSession::nearestBundledModel(error, &byArchitecture);
    m_model->setFocus();
    // Only a library row (the separator's text is empty too: a fresh review read "the
    // library's nearest name, , is chosen below").
    const int at = nearest.isEmpty() ? -1 : m_model->findText(nearest);
    if (at <= kConfigFile || !model.isEmpty()) {
        m_state->setText(tr("This log names no model attnplan has: choose the model it ran, then "
                            "Check."));
        return;
    }
    // The library's nearest name is offered, never read on the user's behalf: a name can be
    // near and wrong (a vision-language model for a coder's log), so Check is the user's.
    m_showing = true;
    m_model->setCurrentIndex(at);
    m_showing = false;
    m_state->setText(
        byArchitecture
            ? tr("This log names no model attnplan has. %1 is of the architecture it states, not "
                 "of its size: Check reads the log with it, or choose the model it ran (a config "
                 "file of its own is exact).")
                  .arg(nearest)
            : tr("This log names no model attnplan has. The library's nearest name, %1, is "
                 "chosen below: Check reads the log with it, or choose the model it ran.")
                  .arg(nearest));
}

void LogPane::apply()
{
    if (m_confirm && !m_confirm())
        return;
    QString error, summary;
    if (!m_session->openEngineLogText(m_text->toPlainText(), m_source, &error, &summary,
                                      m_model->currentData().toString(), nullptr,
                                      m_gpu->currentData().toString())) {
        m_apply->setEnabled(false);
        m_state->setText(tr("Not applied: %1").arg(error));
        return;
    }
    emit applied(summary);
    accept();
}
