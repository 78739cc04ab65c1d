#pragma once
// What dlmscope-server does, without the network: the served models, the runs of every client,
// and one decode step at a time. Runs wait in a queue until one of max_active_runs slots is free;
// the active runs are stepped round-robin (a paused run takes no turn, except for the single
// steps it was granted), so one client's long or paused run does not stall another's. Answers go
// out through `send` as protocol messages (serve/protocol.h). No Qt: the WebSocket layer
// (decode_server.h) calls handle() for each parsed message and step_once() while busy().
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/loaded_model.h"
#include "decode/decode_session.h"
#include "serve/protocol.h"

namespace dlm::serve {

using ClientId = uint64_t;

// What a client is told about a served model (its listing in welcome and models messages).
ModelListing listing_of(const LoadedModel& m);

class DecodeService {
public:
    using Send = std::function<void(ClientId, const std::string& message)>;
    DecodeService(std::vector<LoadedModel> models, ServeLimits limits, Send send);
    ~DecodeService();

    const std::vector<ModelListing>& listings() const { return listings_; }
    const ServeLimits& limits() const { return limits_; }

    // A message from a client past its hello. Problems are answered to that client, never thrown.
    void handle(ClientId client, const ClientMessage& message);
    // The client is gone: its runs end here, quietly (nobody is left to tell).
    void drop_client(ClientId client);
    // Some run can take a step now.
    bool busy() const;
    // One step of the next run whose turn it is; starts waiting runs as slots free up.
    void step_once();

    int waiting_runs() const { return int(waiting_.size()); }
    int active_runs() const { return int(active_.size()); }

private:
    struct Run;
    void submit(ClientId client, const RunRequest& r);
    void control(ClientId client, const Control& c);
    void validate(ClientId client, const ValidateRequest& r);
    size_t model_index(const std::string& name) const;  // throws dlm::Error naming the served ones
    std::vector<int32_t> prompt_ids(const LoadedModel& m, const std::string& prompt, int chat) const;
    void activate_waiting();
    void finish(size_t active_index, RunEnd end, const std::string& error = {});
    void send_record(const Run& run, const std::string& record_json);
    void report_positions();

    std::vector<LoadedModel> models_;
    std::vector<ModelListing> listings_;
    ServeLimits limits_;
    Send send_;
    std::deque<std::unique_ptr<Run>> waiting_;
    std::vector<std::unique_ptr<Run>> active_;
    size_t turn_ = 0;  // round-robin position in active_
};

// A served model as a client sees it.
ModelListing listing_of(const LoadedModel& m);

}  // namespace dlm::serve
