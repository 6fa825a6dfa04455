/// The data viewer a session serves (`view`): the serving task and the page's address.
struct ViewerService {
    let task: Task<Void, Never>
    /// The page's address (`http://127.0.0.1:PORT/`).
    let url: String
}
