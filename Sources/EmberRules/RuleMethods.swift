/// The names the rules language knows: variables, snapshot methods, string members and the
/// query's properties.
enum RuleMethods {
    static let variables: Set<String> = ["auth", "root", "data", "newData", "now", "query"]
    static let snapshotMethods: Set<String> = [
        "val", "child", "parent", "hasChild", "hasChildren", "exists", "getPriority", "isNumber", "isString", "isBoolean",
    ]
    static let stringMethods: Set<String> = ["contains", "beginsWith", "endsWith", "replace", "toLowerCase", "toUpperCase", "matches"]
    static let queryProperties: Set<String> = [
        "orderByKey", "orderByChild", "orderByValue", "orderByPriority", "startAt", "endAt", "equalTo", "limitToFirst",
        "limitToLast",
    ]
}
