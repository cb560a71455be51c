// Cross-entropy classification of images (the CNN and TorchScript models).

#include "worker/train/task.h"

#include "worker/base/imagedataset.h"
#include "worker/base/runspec.h"
#include "worker/train/evaluator.h"
#include "worker/train/models.h"

#include <sstream>

namespace trainyard {

namespace {

const auto kLongs = torch::TensorOptions().dtype(torch::kLong);

class ImageTask : public Task
{
public:
    ImageTask(const RunSpec &spec, ImageDataset data, torch::Device device)
        : m_data(std::move(data))
        , m_device(device)
    {
        m_model = makeClassifier(spec, m_data.train.rows, m_data.train.cols, m_data.classes);
        m_model->to(device);
        if (spec.usesChannelsLast()) {
            // What module.to(memory_format=torch.channels_last) does in Python:
            // the 4-D weights (the convolutions') change layout, values stay.
            torch::NoGradGuard noGrad;
            for (auto &p : m_model->parameters()) {
                if (p.dim() == 4) {
                    p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
                }
            }
            m_memoryFormat = torch::MemoryFormat::ChannelsLast;
        }
        // Normalisation statistics of the training pixels, as the MNIST example does.
        double sum = 0.0, sumSq = 0.0;
        for (const auto p : m_data.train.pixels) {
            const double v = p / 255.0;
            sum += v;
            sumSq += v * v;
        }
        const double count = static_cast<double>(m_data.train.pixels.size());
        m_mean = sum / count;
        m_std = std::sqrt(std::max(1e-12, sumSq / count - m_mean * m_mean));
        m_trainImages = images(m_data.train);
        m_trainLabels = labels(m_data.train);
    }

    torch::nn::Module &module() override { return *m_model; }
    std::int64_t examples() const override { return m_data.train.count; }

    torch::Tensor loss(const torch::Tensor &indices) override
    {
        const auto idx = indices.to(m_device, true);
        const auto x = normalizeImages(m_trainImages.index_select(0, idx), m_mean, m_std).contiguous(m_memoryFormat);
        return m_model->loss(m_model->forward(x), m_trainLabels.index_select(0, idx));
    }

    nlohmann::json evaluate(const std::string &split, std::int64_t batchSize,
                            const std::function<bool()> &keepGoing) override
    {
        const ImageSet &set = m_data.split(split);
        const double accuracy =
            evaluateAccuracy(*m_model, images(set), labels(set), m_mean, m_std, batchSize, keepGoing);
        if (accuracy < 0) {
            return nullptr;
        }
        return {{"accuracy", accuracy}};
    }

    std::string describe() const override
    {
        std::ostringstream os;
        os << m_data.train.count << "/" << m_data.valid.count << "/" << m_data.test.count
           << " train/valid/test images of " << m_data.train.rows << "x" << m_data.train.cols << ", " << m_data.classes
           << " classes";
        return os.str();
    }

private:
    torch::Tensor images(const ImageSet &set) const
    {
        return torch::from_blob(const_cast<std::uint8_t *>(set.pixels.data()), {set.count, 1, set.rows, set.cols},
                                torch::TensorOptions().dtype(torch::kByte))
            .clone()
            .to(m_device);
    }
    torch::Tensor labels(const ImageSet &set) const
    {
        return torch::from_blob(const_cast<std::int64_t *>(set.labels.data()), {set.count}, kLongs)
            .clone()
            .to(m_device);
    }

    ImageDataset m_data;
    torch::Device m_device;
    std::shared_ptr<ClassifierImpl> m_model;
    torch::MemoryFormat m_memoryFormat = torch::MemoryFormat::Contiguous; // of input batches
    double m_mean = 0.0;
    double m_std = 1.0;
    torch::Tensor m_trainImages; // bytes [n, 1, H, W] on the device
    torch::Tensor m_trainLabels;
};

} // namespace

std::unique_ptr<Task> makeImageTask(const RunSpec &spec, ImageDataset data, torch::Device device)
{
    return std::make_unique<ImageTask>(spec, std::move(data), device);
}

} // namespace trainyard
