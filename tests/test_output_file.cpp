// Output files (util/output_file.hpp): whole or nothing, safe in shared directories, devices and FIFOs written in
// place, every write checked (issue 20 item 5). Input files (util/input_file.hpp, formats::MappedFile): a FIFO,
// a device or an oversized file is refused at once, never a hang or a read until memory runs out (item 10).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/util/input_file.hpp"
#include "cuzk/util/output_file.hpp"

namespace fs = std::filesystem;

namespace cuzk {
namespace {

class OutputFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/cuzk-output-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override { fs::remove_all(dir_); }

    static std::string read(const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), {}};
    }
    static void put(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }
    static void write(const fs::path& p, const std::string& s) {
        write_file_atomically(p, std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
    }
    // Entries of the directory: a committed or failed write leaves no temporary behind.
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

    fs::path dir_;
};

TEST_F(OutputFileTest, NewAndExistingFilesAreReplacedWholeKeepingTheirMode) {
    const fs::path out = dir_ / "proof.bin";
    write(out, "first");
    EXPECT_EQ(read(out), "first");
    ASSERT_EQ(::chmod(out.c_str(), 0640), 0);
    write(out, std::string(3 << 20, 'x'));  // larger than the buffer: the direct path
    EXPECT_EQ(read(out).size(), size_t(3) << 20);
    struct stat st {};
    ASSERT_EQ(::stat(out.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(entries(), std::vector<std::string>{"proof.bin"});
}

TEST_F(OutputFileTest, AFailedFillLeavesTheOldFileAndNoTemporary) {
    const fs::path out = dir_ / "params";
    put(out, "old");
    EXPECT_THROW(write_file_atomically(out,
                                       [](OutputFile& f) {
                                           f.write("partial", 7);
                                           throw std::runtime_error("the producer failed");
                                       }),
                 std::runtime_error);
    EXPECT_EQ(read(out), "old");
    EXPECT_EQ(entries(), std::vector<std::string>{"params"});
}

TEST_F(OutputFileTest, ASymbolicLinkIsFollowedAndADanglingOneRefused) {
    const fs::path real = dir_ / "real.json", link = dir_ / "link.json";
    put(real, "old");
    fs::create_symlink(real, link);
    write(link, "new");
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(read(real), "new");
    // A link to a file that does not exist is not followed (it could point anywhere).
    const fs::path victim = dir_ / "victim", dangling = dir_ / "dangling";
    fs::create_symlink(victim, dangling);
    EXPECT_THROW(write(dangling, "x"), OutputFileError);
    EXPECT_FALSE(fs::exists(victim));
}

// The old temporary name was <out>.tmp-<pid>; a link planted under any such name is never written through.
TEST_F(OutputFileTest, PlantedLinksUnderPredictableNamesAreNotFollowed) {
    const fs::path victim = dir_ / "victim", out = dir_ / "proof.json";
    put(victim, "precious");
    for (const std::string& suffix : std::vector<std::string>{".tmp", ".tmp-" + std::to_string(::getpid())}) {
        fs::path planted = out;
        planted += suffix;
        fs::create_symlink(victim, planted);
    }
    write(out, "proof");
    EXPECT_EQ(read(victim), "precious");
    EXPECT_EQ(read(out), "proof");
}

TEST_F(OutputFileTest, DevicesAndFifosAreWrittenInPlace) {
    write("/dev/null", "discarded");
    struct stat st {};
    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    // A full device: the error surfaces (at the latest when the buffer is flushed), never a silent success.
    try {
        write("/dev/full", "no room");
        ADD_FAILURE() << "writing /dev/full succeeded";
    } catch (const OutputFileError& e) {
        EXPECT_NE(std::string(e.what()).find("No space left"), std::string::npos) << e.what();
    }
    const fs::path fifo = dir_ / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_THROW(write(fifo, "nobody reads"), OutputFileError);  // refused at once, not a hang
    std::string got;
    std::thread reader([&] { got = read(fifo); });
    // The reader opens the FIFO; retry until it has (opening for writing needs a reader).
    for (int i = 0;; i++) {
        try {
            write(fifo, "through the pipe");
            break;
        } catch (const OutputFileError&) {
            ASSERT_LT(i, 500);
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    reader.join();
    EXPECT_EQ(got, "through the pipe");
    EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(OutputFileTest, DirectoriesAndMissingDirectoriesAreRefused) {
    EXPECT_THROW(write(dir_, "x"), OutputFileError);
    EXPECT_THROW(write(dir_ / "missing" / "file", "x"), OutputFileError);
    // The formats layer reports the same as an I/O FormatError.
    try {
        formats::detail::write_file_atomically(dir_, std::span<const uint8_t>());
        ADD_FAILURE() << "a directory was accepted";
    } catch (const formats::FormatError& e) {
        EXPECT_EQ(e.kind(), formats::FormatErrorKind::Io);
        EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
    }
}

TEST_F(OutputFileTest, ConcurrentWritersEachWriteAWholeFile) {
    const fs::path out = dir_ / "shared.pce";
    const std::string a(1 << 16, 'a'), b(1 << 17, 'b');
    std::thread ta([&] {
        for (int i = 0; i < 20; i++) write(out, a);
    });
    std::thread tb([&] {
        for (int i = 0; i < 20; i++) write(out, b);
    });
    ta.join();
    tb.join();
    const std::string got = read(out);
    EXPECT_TRUE(got == a || got == b);
    EXPECT_EQ(entries(), std::vector<std::string>{"shared.pce"});
}

TEST_F(OutputFileTest, InputsThatWouldHangOrExhaustMemoryAreRefusedAtOnce) {
    const fs::path fifo = dir_ / "in.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);  // nobody writes it: a blocking open would never return
    EXPECT_THROW(read_input_file(fifo, 1 << 20, "--public"), InputFileError);
    EXPECT_THROW(formats::MappedFile{fifo}, formats::FormatError);
    try {
        read_input_file("/dev/zero", 1 << 20, "--c1");
        ADD_FAILURE() << "/dev/zero was read";
    } catch (const InputFileError& e) {
        EXPECT_NE(std::string(e.what()).find("--c1: /dev/zero: is not a regular file"), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_input_file(dir_, 1 << 20), InputFileError);
    EXPECT_THROW(read_input_file(dir_ / "missing", 1 << 20), InputFileError);
    const fs::path f = dir_ / "public.json";
    put(f, std::string(1000, ' '));
    EXPECT_EQ(read_input_file(f, 1000).size(), 1000u);
    try {
        read_input_file(f, 999, "--public");
        ADD_FAILURE() << "a file over the cap was read";
    } catch (const InputFileError& e) {
        EXPECT_NE(std::string(e.what()).find("is 1000 bytes, more than the 999"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace cuzk
